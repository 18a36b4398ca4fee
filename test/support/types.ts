import type { Cluster, ClusterOptions, RedisOptions, Valkey } from 'iovalkey';

/** `true` loads test/module/emq.so with wire identity '1'. */
export type ModuleOption = boolean | { readonly wire?: string };

/** Credentials the harness itself uses (readiness probes, client(), valkey-cli, replication). */
export interface Auth {
  readonly username?: string;
  readonly password: string;
}

export interface ServerOptions {
  readonly module?: ModuleOption;
  /** Appended to the server's arguments; an option named here replaces the harness default. */
  readonly extraArgs?: readonly string[];
  readonly auth?: Auth;
  readonly startTimeoutMs?: number;
}

export interface ReplicatedOptions extends ServerOptions {
  readonly replicas?: number;
  readonly syncTimeoutMs?: number;
}

export interface ClusterStartOptions extends ServerOptions {
  readonly primaries?: number;
  readonly replicasPerPrimary?: number;
  readonly nodeTimeoutMs?: number;
  readonly readyTimeoutMs?: number;
}

export type Role = 'primary' | 'replica';

export interface ServerHandle {
  readonly kind: 'server';
  readonly host: string;
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  readonly args: readonly string[];
  /** Undefined while the process is not running (killed, stopped). */
  readonly pid: number | undefined;
  readonly running: boolean;
  client(options?: RedisOptions): Promise<Valkey>;
  role(): Promise<Role>;
  kill(signal?: NodeJS.Signals): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
  logs(lines?: number): string;
}

export interface ReplicatedHandle {
  readonly kind: 'replicated';
  readonly primary: ServerHandle;
  readonly replicas: readonly ServerHandle[];
  readonly nodes: readonly ServerHandle[];
  waitForSync(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterHandle {
  readonly kind: 'cluster';
  readonly nodes: readonly ServerHandle[];
  readonly seeds: readonly string[];
  primaries(): Promise<ServerHandle[]>;
  clusterClient(options?: ClusterOptions): Promise<Cluster>;
  waitForHealthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}
