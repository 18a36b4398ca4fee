/**
 * The CPU a module artifact was built for, read from its ELF header, and the CPU an instance
 * type runs. A module built for another CPU fails only at the nodes' first boot, deep in a log;
 * reading 20 bytes at synthesis says it up front.
 */
import { closeSync, openSync, readSync } from 'node:fs';

export type CpuArchitecture = 'arm64' | 'x86_64';

/** ELF e_machine values (little-endian, at byte 18). */
const MACHINES: Readonly<Record<number, CpuArchitecture>> = { 183: 'arm64', 62: 'x86_64' };

/** The module's CPU, or `undefined` when the file is no 64-bit little-endian ELF for either. */
export function moduleArchitecture(path: string): CpuArchitecture | undefined {
  const header = Buffer.alloc(20);
  const fd = openSync(path, 'r');
  try {
    if (readSync(fd, header, 0, header.length, 0) < header.length) return undefined;
  } finally {
    closeSync(fd);
  }
  const elf = header.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  const elf64LittleEndian = header[4] === 2 && header[5] === 1;
  return elf && elf64LittleEndian ? MACHINES[header.readUInt16LE(18)] : undefined;
}

/**
 * Graviton types carry a `g` among the letters after the generation digit: t4g, m7g, r8gd,
 * c7gn, im4gn, is4gen. Others (m7i, c6a, t3) run x86_64.
 */
export function instanceArchitecture(instanceType: string): CpuArchitecture {
  const family = instanceType.split('.')[0] ?? '';
  return /^[a-z]+\d+[a-z]*g/.test(family) ? 'arm64' : 'x86_64';
}
