/* Preloaded by the tests (LD_PRELOAD), it makes every write to a cache
 * store's data.mdb fail with EIO while EIO_STORE is set in the
 * environment: a disk that fails, where the tests have no device to fail.
 * LMDB writes its pages with pwrite and writev (pwritev on some systems)
 * and syncs with fdatasync; reads go through its map. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Is fd open on a file named data.mdb? */
static int is_store(int fd)
{
	char p[64], t[4096];
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(p, t, sizeof t - 1);
	if (n < 0)
		return 0;
	t[n] = 0;
	return strstr(t, "data.mdb") != NULL;
}

static int failing(int fd)
{
	return getenv("EIO_STORE") && is_store(fd);
}
/* name, with its parameters and the call's arguments: fails with EIO on
 * the store while EIO_STORE is set, else calls the C library's */
#define FAILING_ON_STORE(type, name, params, args)               \
	type name params                                         \
	{                                                        \
		static type(*real) params;                       \
		if (!real)                                       \
			real = dlsym(RTLD_NEXT, #name);          \
		if (failing(fd)) {                               \
			errno = EIO;                             \
			return -1;                               \
		}                                                \
		return real args;                                \
	}

FAILING_ON_STORE(ssize_t, pwrite, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o))
FAILING_ON_STORE(ssize_t, pwritev, (int fd, const struct iovec *v, int c, off_t o), (fd, v, c, o))
FAILING_ON_STORE(ssize_t, writev, (int fd, const struct iovec *v, int c), (fd, v, c))
FAILING_ON_STORE(int, fdatasync, (int fd), (fd))
