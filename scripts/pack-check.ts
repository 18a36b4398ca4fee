/**
 * `npm pack`'s last step (prepack): refuses a tarball whose self-managed module artifacts are
 * missing or built for the wrong CPU. The constructs deploy the x86_64 or arm64 build from the
 * installed package by the nodes' instance type, so each file must hold what its name says;
 * a tarball packed on an arm64 machine would otherwise ship an arm64 build as the x86_64 one.
 */
import { existsSync } from 'node:fs';
import { moduleArchitecture } from '../infra/cache/selfmanaged/module-artifact.js';
import { ARM64_MODULE, HOST_MODULE } from '../module/artifacts.js';

const EXPECTED = [
  { file: HOST_MODULE, architecture: 'x86_64' },
  { file: ARM64_MODULE, architecture: 'arm64' },
] as const;

const problems = EXPECTED.flatMap(({ file, architecture }) => {
  if (!existsSync(file)) return [`${file} is missing: run make -C module (both builds).`];
  const built = moduleArchitecture(file);
  return built === architecture
    ? []
    : [`${file} is built for ${built ?? 'an unknown CPU'}, not ${architecture}: pack on x86_64.`];
});
if (problems.length > 0) {
  console.error(`npm pack: the module artifacts the package ships:\n${problems.join('\n')}`);
  process.exitCode = 1;
}
