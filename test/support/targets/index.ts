// The target profiles' entry point: suites import from here (README.md says how to use it).
export { HARNESS_USER, type TargetUser } from './acl-file.js';
export {
  assertCommandsSupported,
  type CommandCheck,
  unsupportedCommands,
} from './assert-commands.js';
export { CommandLog, type CommandRecord, fullName } from './command-log.js';
export {
  type Deployed,
  type DeployedUser,
  deployed,
  deployedUsers,
  type EnvironmentOptions,
  environmentFor,
  type FunctionName,
  type LocalEnvironment,
  standInArn,
} from './deployed.js';
export { PROFILE_NAMES, PROFILES, type ProfileName, type TargetProfile } from './profiles.js';
export { type SecretsClient, SecretsStandIn } from './secrets-stand-in.js';
export { startTarget, type TargetOptions } from './start-target.js';
export { Target, type TargetNode } from './target.js';
