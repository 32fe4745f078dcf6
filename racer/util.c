/* Reads into an evbuffer; the program's path; standard output watched, or
 * made nonblocking (util.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "racer/util.h"

/* at < 0: read(2), else pread(2) at that offset */
static ssize_t read_at(struct evbuffer *buf, int fd, size_t most, off_t at)
{
	struct evbuffer_iovec v;
	if (evbuffer_reserve_space(buf, (ev_ssize_t)most, &v, 1) < 1)
		die("out of memory");
	size_t len = most < v.iov_len ? most : v.iov_len;
	ssize_t n = at < 0 ? read(fd, v.iov_base, len) : pread(fd, v.iov_base, len, at);
	int saved = errno;
	v.iov_len = n > 0 ? (size_t)n : 0;
	evbuffer_commit_space(buf, &v, 1);
	errno = saved;
	return n;
}

ssize_t read_into(struct evbuffer *buf, int fd, size_t most)
{
	return read_at(buf, fd, most, -1);
}

ssize_t pread_into(struct evbuffer *buf, int fd, size_t most, off_t at)
{
	return read_at(buf, fd, most, at);
}

ssize_t read_pipe(struct evbuffer *buf, int fd, size_t most)
{
	ssize_t n = read_into(buf, fd, most);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return -1;
	return n < 0 ? 0 : n;
}

bool self_path(char *self)
{
	ssize_t n = readlink("/proc/self/exe", self, PATH_MAX - 1);
	if (n <= 0)
		return false;
	self[n] = '\0';
	return true;
}

/* Standard output is a pipe or a socket: a reader that may go, or wait. */
static bool stdout_is_stream(void)
{
	struct stat st;
	return fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

int stdout_nonblock(void)
{
	int fl = stdout_is_stream() ? fcntl(STDOUT_FILENO, F_GETFL) : -1;
	return fl >= 0 && fcntl(STDOUT_FILENO, F_SETFL, fl | O_NONBLOCK) == 0 ? fl : -1;
}

void stdout_restore(int flags)
{
	if (flags >= 0)
		fcntl(STDOUT_FILENO, F_SETFL, flags);
}

static void (*stdout_gone)(void);

static void stdout_watch_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	struct pollfd pfd = {.fd = STDOUT_FILENO, .events = 0};
	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLERR | POLLHUP)))
		stdout_gone();
}

struct event *stdout_watch_new(struct event_base *base, void (*gone)(void))
{
	if (!stdout_is_stream())
		return NULL;
	stdout_gone = gone;
	struct event *ev = event_new(base, -1, EV_PERSIST, stdout_watch_cb, NULL);
	struct timeval tv = {0, STDOUT_WATCH_MS * 1000};
	if (!ev || event_add(ev, &tv) < 0)
		die("cannot watch standard output");
	return ev;
}
