export async function startBench(): Promise<void> {}
