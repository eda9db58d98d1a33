/*
 * winquote: turn an argv vector into a Windows command line.
 *
 * A Windows process gets one string, not a vector; the program splits it
 * again (CommandLineToArgvW and the C runtimes follow the same rules).
 * winquote_cmdline builds the string that splits back into exactly argv:
 *
 *   - argv[0] is split by its own rule: up to the first space or tab, or,
 *     when it starts with a quote, up to the next quote, with backslashes
 *     taken literally. So argv[0] is quoted whole when it is empty or holds
 *     a space or tab, and an argv[0] holding a '"' cannot be expressed at
 *     all (EINVAL). A Windows file name never holds one.
 *   - every other argument is written as is when it is non-empty and holds
 *     none of space, tab, newline, vertical tab or '"'; otherwise it is put
 *     in quotes, each '"' inside becomes \", a run of n backslashes before
 *     a '"' (inside, or the closing one) becomes 2n backslashes (2n + 1
 *     with the escaped quote), and other backslashes stay as they are.
 *
 * Strings are UTF-8 in and out (the special characters are all ASCII, so
 * the rules act on bytes); the caller converts to UTF-16 for
 * CreateProcessW. cmd.exe parses a .bat or .cmd file's arguments by other
 * rules that no quoting makes safe, so such targets are refused.
 */
#ifndef ARCTURN_WINQUOTE_H
#define ARCTURN_WINQUOTE_H

/*
 * Build the command line for the NULL-terminated argv (argv[0] non-NULL).
 * On success *out is a NUL-terminated string allocated with mem_alloc,
 * owned by the caller. Returns 0, or -1 with errno EINVAL (argv empty, or
 * a '"' in argv[0]) or ENOMEM.
 */
int	winquote_cmdline(char *const argv[], char **out);

/*
 * 1 if path names a batch file (.bat or .cmd, in any case, also with
 * trailing dots or spaces, which Windows strips, or with an NTFS stream
 * suffix such as "::$DATA"), else 0. Only the last component counts;
 * both '/' and '\' separate components.
 */
int	winquote_is_batch(const char *path);

#endif
