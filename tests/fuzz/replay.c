/* Runs a fuzz target's kept inputs through it: a TAP test in make check
 * (any compiler), so that every crasher ever found stays fixed. The inputs
 * are the files of tests/fuzz/corpus/TARGET, or of the folders given. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* one input, whole */
static int replay(const char *path, int n)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("not ok %d - %s: cannot open\n", n, path);
		return 1;
	}
	size_t cap = 4096, size = 0;
	uint8_t *data = malloc(cap);
	size_t k;
	while (data && (k = fread(data + size, 1, cap - size, f)) > 0) {
		size += k;
		if (size == cap) {
			uint8_t *more = realloc(data, 2 * cap);
			if (!more) {
				free(data);
				data = NULL;
				break;
			}
			data = more;
			cap *= 2;
		}
	}
	fclose(f);
	if (!data) {
		printf("not ok %d - %s: out of memory\n", n, path);
		return 1;
	}
	/* an exact copy: a read past the input's end is an error under ASan */
	uint8_t *exact = malloc(size ? size : 1);
	if (!exact) {
		free(data);
		printf("not ok %d - %s: out of memory\n", n, path);
		return 1;
	}
	memcpy(exact, data, size);
	free(data);
	LLVMFuzzerTestOneInput(exact, size);
	free(exact);
	printf("ok %d - %s\n", n, path);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	char dflt[4096];
	const char *top = getenv("top_srcdir");
	snprintf(dflt, sizeof dflt, "%s/tests/fuzz/corpus/%s", top ? top : ".", FUZZ_TARGET);
	char *dirs_dflt[] = {dflt};
	char **dirs = argc > 1 ? argv + 1 : dirs_dflt;
	int ndirs = argc > 1 ? argc - 1 : 1;
	/* the plan first: count the inputs */
	int total = 0;
	for (int d = 0; d < ndirs; d++) {
		struct dirent **names;
		int k = scandir(dirs[d], &names, NULL, by_name);
		if (k < 0) {
			printf("1..0 # SKIP %s: no such folder\n", dirs[d]);
			return 0;
		}
		for (int i = 0; i < k; i++) {
			total += names[i]->d_name[0] != '.';
			free(names[i]);
		}
		free(names);
	}
	printf("1..%d\n", total);
	int n = 0, failed = 0;
	for (int d = 0; d < ndirs; d++) {
		struct dirent **names;
		int k = scandir(dirs[d], &names, NULL, by_name);
		for (int i = 0; i < k; i++) {
			if (names[i]->d_name[0] != '.') {
				char path[8192];
				snprintf(path, sizeof path, "%s/%s", dirs[d], names[i]->d_name);
				failed += replay(path, ++n);
			}
			free(names[i]);
		}
		free(names);
	}
	return failed ? 1 : 0;
}
