export interface Kura {
  endpoint: string;
  reset(): Promise<void>;
  stop(): Promise<void>;
}
export function binaryPath(): string;
export function startKura(options?: { args?: string[]; inMemory?: boolean; timeoutMs?: number }): Promise<Kura>;
export function exportEndpoint(endpoint: string): void;
