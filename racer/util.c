/* One read into an evbuffer (util.h). */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "racer/util.h"

ssize_t read_into(struct evbuffer *buf, int fd, size_t most)
{
	struct evbuffer_iovec v;
	if (evbuffer_reserve_space(buf, (ev_ssize_t)most, &v, 1) < 1)
		die("out of memory");
	ssize_t n = read(fd, v.iov_base, most < v.iov_len ? most : v.iov_len);
	int saved = errno;
	v.iov_len = n > 0 ? (size_t)n : 0;
	evbuffer_commit_space(buf, &v, 1);
	errno = saved;
	return n;
}
