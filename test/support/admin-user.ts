// The harness's own user on servers that switch the default user off, as the AWS targets do:
// the tests that start such a server name its other users and reach it as ADMIN.

/** Every permission; the harness's probes, set-up and checks run as this user. */
export const ADMIN = { username: 'admin', password: 'admin-password-for-tests' } as const;

/**
 * valkey-server arguments for such a server: ADMIN, then each of `users` (its name and ACL
 * rules, as after `--user`), then the default user off.
 */
export function usersWithAdmin(...users: readonly (readonly string[])[]): string[] {
  return [
    ...['--user', ADMIN.username, 'on', `>${ADMIN.password}`, '~*', '&*', '+@all'],
    ...users.flatMap((rules) => ['--user', ...rules]),
    ...['--user', 'default', 'off'],
  ];
}
