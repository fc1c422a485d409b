/**
 * True when a key event comes from a text field (input, textarea, select or an editable element),
 * so page-wide shortcuts leave typing alone. Every keyboard binding in Cairn checks it.
 */
export function isTyping(event: KeyboardEvent): boolean {
  const target = event.target as HTMLElement | null;
  return (
    !!target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || target.isContentEditable)
  );
}
