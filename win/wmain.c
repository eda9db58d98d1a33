/*
 * wmain: the Windows entry point. Windows hands a program UTF-16; the
 * portable code takes UTF-8 argv (as on Linux and macOS), so the
 * arguments are converted here and main.c's main (renamed arcturn_main
 * for this build) is called with them. Nothing is lost: the backend turns
 * the command's argv back into UTF-16 for CreateProcessAsUserW.
 */
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>

int	arcturn_main(int, char **);
char	*compat_utf8(const wchar_t *);

int
wmain(int argc, wchar_t **wargv)
{
	char **argv;
	int i;

	if ((argv = calloc((size_t)argc + 1, sizeof *argv)) == NULL) {
		fputs("arcturn: out of memory\n", stderr);
		return 125;
	}
	for (i = 0; i < argc; i++)
		if ((argv[i] = compat_utf8(wargv[i])) == NULL) {
			fputs("arcturn: argument is not valid UTF-16\n", stderr);
			return 125;
		}
	SetConsoleOutputCP(CP_UTF8);
	return arcturn_main(argc, argv);
}
