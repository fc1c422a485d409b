/** The docs' examples, served by tests/docs/vite-plugin.ts. */
declare module 'virtual:cairn-docs-examples' {
  export const examples: Array<{ file: string; line: number; load: () => Promise<unknown> }>;
}
