/* A filter's FILE arguments and its standard output (files.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/common.h"
#include "lib/files.h"

int files_read_each(int argc, char **argv, int first, int (*read_one)(int fd, const char *name))
{
	if (first >= argc)
		return read_one(STDIN_FILENO, NULL) < 0 ? 2 : 0;
	int status = 0;
	for (int i = first; i < argc; i++) {
		if (strcmp(argv[i], "-") == 0) {
			if (read_one(STDIN_FILENO, NULL) < 0)
				status = 2;
			continue;
		}
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "%s: %s: %s\n", program, argv[i], strerror(errno));
			status = 2;
			continue;
		}
		if (read_one(fd, argv[i]) < 0)
			status = 2;
		close(fd);
	}
	return status;
}

int files_finish_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: write error: %s\n", program, strerror(errno));
		return 2;
	}
	return 0;
}
