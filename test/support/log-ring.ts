/** Keeps the last lines a server printed, so a failure can show why without unbounded memory. */
export class LogRing {
  readonly #lines: string[] = [];
  readonly #capacity: number;
  #partial = '';

  constructor(capacity = 300) {
    this.#capacity = capacity;
  }

  write(chunk: Buffer | string): void {
    const parts = (this.#partial + chunk.toString()).split('\n');
    this.#partial = parts.pop() ?? '';
    for (const line of parts) this.#push(line);
  }

  mark(line: string): void {
    this.#push(`--- ${line} ---`);
  }

  includes(text: string): boolean {
    return this.#partial.includes(text) || this.#lines.some((line) => line.includes(text));
  }

  tail(count = 40): string {
    const lines = this.#partial ? [...this.#lines, this.#partial] : this.#lines;
    return lines.slice(-count).join('\n');
  }

  #push(line: string): void {
    this.#lines.push(line);
    if (this.#lines.length > this.#capacity) this.#lines.shift();
  }
}
