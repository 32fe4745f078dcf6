/* A cache helper process and its socket, from the racer's side
 * (cache_link.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "lib/common.h"
#include "racer/cache_link.h"
#include "racer/cache_lmdb.h"
#include "racer/spawn.h"

/* A helper told to end (its input closed) that has not within this long
 * is killed. */
#define STOP_WAIT_MS 2000

static void on_exit_status(void *owner, int wstatus)
{
	struct link *l = owner;
	l->exited = true;
	l->status = wstatus;
}

bool link_start(struct link *l, int (*run)(void *), void *arg, int *arg_fd)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return false;
	*arg_fd = sv[1];
	l->exited = false;
	l->status = 0;
	l->pid = spawn_helper(run, arg, sv[1], on_exit_status, l);
	int err = errno;
	close(sv[1]);
	if (l->pid < 0) {
		close(sv[0]);
		l->fd = -1;
		errno = err;
		return false;
	}
	l->fd = sv[0];
	return true;
}

bool link_alive(const struct link *l)
{
	return l->pid > 0;
}

/* Its exit status, once its socket is closed (it has ended or is ending). */
static void link_reap(struct link *l)
{
	if (l->pid > 0 && !l->exited) {
		children_wait(l->pid, &l->status);
		l->exited = true;
	}
}

/* Handles the messages that are in; false when the link ended. */
static bool take(struct link *l)
{
	struct cmsg m;
	char why[256];
	int got;
	while (l->pid > 0 && (got = cmsg_get(&l->in, l->expect, &m, why, sizeof why)) != 0) {
		if (got < 0) {
			l->on_end(l, why);
			return false;
		}
		l->on_message(l, &m);
	}
	return l->pid > 0;
}

/* Reads what came and handles it; its end, if it ended. False then. */
static bool receive(struct link *l)
{
	ssize_t n = cmsg_read(l->fd, &l->in);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return true;
	if (!take(l))
		return false;
	if (n <= 0) {
		link_reap(l);
		l->on_end(l, NULL);
		return false;
	}
	return true;
}

static void on_read(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what;
	receive(arg);
}

void link_send(struct link *l)
{
	if (l->pid < 0 || !cmsg_buf_pending(&l->out))
		return;
	int r = cmsg_write(l->fd, &l->out);
	if (r < 0)
		l->out.off = l->out.len = 0; /* it is gone: its socket's end says how */
	else if (r == 0 && l->wev)
		event_add(l->wev, NULL);
}

static void on_write(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what;
	struct link *l = arg;
	link_send(l);
	if (l->on_sent)
		l->on_sent(l);
}

void link_watch(struct link *l, struct event_base *base)
{
	if (!base || l->pid < 0 || l->rev)
		return;
	fcntl(l->fd, F_SETFL, fcntl(l->fd, F_GETFL) | O_NONBLOCK);
	l->rev = event_new(base, l->fd, EV_READ | EV_PERSIST, on_read, l);
	l->wev = event_new(base, l->fd, EV_WRITE, on_write, l);
	if (!l->rev || !l->wev || event_add(l->rev, NULL) < 0)
		die("out of memory");
}

int link_wait(struct link *l, int silence_ms, bool (*done)(void))
{
	if (l->wev)
		event_del(l->wev);
	while (l->pid > 0) {
		if (!take(l))
			return -1;
		if (done && done())
			return 1;
		struct pollfd p = {.fd = l->fd, .events = POLLIN | (cmsg_buf_pending(&l->out) ? POLLOUT : 0)};
		int n = poll(&p, 1, silence_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return 0;
		if (n < 0)
			break;
		if ((p.revents & POLLOUT) && cmsg_write(l->fd, &l->out) < 0)
			l->out.off = l->out.len = 0;
		if ((p.revents & (POLLIN | POLLHUP | POLLERR)) && !receive(l))
			return -1;
	}
	return -1;
}

void link_stop(struct link *l, bool kill_it)
{
	if (l->rev)
		event_free(l->rev);
	if (l->wev)
		event_free(l->wev);
	l->rev = l->wev = NULL;
	if (l->pid > 0 && !l->exited) {
		if (kill_it || l->fd < 0) {
			kill(l->pid, SIGKILL);
		} else {
			/* the end of its input: it ends */
			shutdown(l->fd, SHUT_WR);
			struct pollfd p = {.fd = l->fd, .events = POLLIN};
			char drop[4096];
			int n;
			while ((n = poll(&p, 1, STOP_WAIT_MS)) > 0 && read(l->fd, drop, sizeof drop) > 0)
				;
			if (n == 0)
				kill(l->pid, SIGKILL); /* silent all that time */
		}
		link_reap(l);
	}
	l->pid = -1;
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	cmsg_buf_free(&l->in);
	cmsg_buf_free(&l->out);
}

/* Signals by which LMDB's work ends on a damaged file (SIGXCPU: a loop
 * of its pages, helper_budget). */
static bool is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT || sig == SIGXCPU;
}

static void fault_why(int sig, char *why, size_t whysz)
{
	if (sig == SIGBUS)
		snprintf(why, whysz, "LMDB ran past the end of the file (SIGBUS)");
	else if (sig == SIGSEGV)
		snprintf(why, whysz, "LMDB went outside the file (SIGSEGV)");
	else if (sig == SIGXCPU)
		snprintf(why, whysz, "LMDB went round its pages without end (SIGXCPU)");
	else
		snprintf(why, whysz, "LMDB failed its own checks (abort)");
}

enum cmsg_fail link_why_ended(const struct link *l, const char *dir, bool opening, const char *broken, char *why,
			      size_t whysz)
{
	int st = l->status;
	if (broken) {
		snprintf(why, whysz, "%s: the cache's %s process sent %s", dir, l->name, broken);
		return CF_ERROR;
	}
	if (WIFSIGNALED(st) && is_fault(WTERMSIG(st)) && !opening) {
		fault_why(WTERMSIG(st), why, whysz);
		return CF_DAMAGED;
	}
	if (WIFSIGNALED(st) && !is_fault(WTERMSIG(st))) {
		snprintf(why, whysz, "%s: the cache's %s process was killed (%s)", dir, l->name, strsignal(WTERMSIG(st)));
		return CF_ERROR;
	}
	if (opening || (WIFEXITED(st) && WEXITSTATUS(st) == HELPER_EXIT_BROKEN_PEER)) {
		struct statvfs fs;
		bool full = statvfs(dir, &fs) == 0 && fs.f_bavail == 0;
		snprintf(why, whysz, "%s: the cache's %s process ended %s (%s %d)%s", dir, l->name,
			 opening ? "opening it" : "on a message it could not read",
			 WIFSIGNALED(st) ? "signal" : "exit status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
			 full ? ": no space left on device" : "");
		return CF_ERROR;
	}
	snprintf(why, whysz, "%s it ended the %s process without a report",
		 strcmp(l->name, "reader") == 0 ? "reading" : "writing to", l->name);
	return CF_DAMAGED;
}
