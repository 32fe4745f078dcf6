/* The racer's children (spawn.h): starting them, and handing each one's
 * exit status to its owner. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "racer/spawn.h"

struct child {
	pid_t pid;
	child_exit_fn fn;
	void *owner;
};

static struct child *children;
static int nchildren, capchildren;
static struct event *sigchld;

static void watch(pid_t pid, child_exit_fn fn, void *owner)
{
	if (nchildren == capchildren) {
		int cap = capchildren ? 2 * capchildren : 32;
		struct child *c = realloc(children, (size_t)cap * sizeof *c);
		if (!c) {
			/* no room to remember it: it is reaped quietly, and its
			 * owner learns of its end from its pipes */
			return;
		}
		children = c;
		capchildren = cap;
	}
	children[nchildren++] = (struct child){pid, fn, owner};
}

static int find(pid_t pid)
{
	for (int i = 0; i < nchildren; i++)
		if (children[i].pid == pid)
			return i;
	return -1;
}

static void drop(int i)
{
	children[i] = children[--nchildren];
}

/* Every fd from 3 up, but keep (-1: none). */
static void close_from_3(int keep)
{
	unsigned lo = 3;
	if (keep >= 3) {
		if ((unsigned)keep > lo)
			(void)syscall(SYS_close_range, lo, (unsigned)keep - 1, 0u);
		lo = (unsigned)keep + 1;
	}
	if (syscall(SYS_close_range, lo, ~0u, 0u) == 0)
		return;
	/* a kernel before 5.9: one at a time */
	long most = sysconf(_SC_OPEN_MAX);
	for (long fd = lo; fd < (most > 0 ? most : 1024); fd++)
		(void)close((int)fd);
}

/* What every child has before it runs its own code: signals back to their
 * defaults (they were all blocked across the fork, so no handler of the
 * racer's ran in it), then unblocked. */
static void reset_signals(void)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In the vfork child: system calls only, nothing that writes memory the
 * racer shares (the child runs on the racer's stack until it execs). */
static void exec_child(const struct spawn_program *sp, pid_t racer, int null_fd) __attribute__((noreturn));
static void exec_child(const struct spawn_program *sp, pid_t racer, int null_fd)
{
	if (sp->own_group)
		setpgid(0, 0);
	if (sp->nice)
		setpriority(PRIO_PROCESS, 0, sp->nice);
	if (sp->die_with_racer) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != racer)
			_exit(127); /* the racer ended before the line above */
	}
	int in = sp->stdin_fd >= 0 ? sp->stdin_fd : null_fd;
	int out = sp->stdout_fd >= 0 ? sp->stdout_fd : null_fd;
	if (in < 0 || out < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
	    (sp->stderr_fd > STDERR_FILENO && dup2(sp->stderr_fd, STDERR_FILENO) < 0))
		_exit(127);
	close_from_3(-1);
	reset_signals();
	execv(sp->path, sp->argv);
	dprintf(STDERR_FILENO, "sudoku-race: cannot run %s: %s\n", sp->path, strerror(errno));
	_exit(127);
}

pid_t spawn_program(const struct spawn_program *sp, child_exit_fn fn, void *owner)
{
	int null_fd = -1;
	if (sp->stdin_fd < 0 || sp->stdout_fd < 0) {
		null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null_fd < 0)
			return -1;
	}
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid_t racer = getpid();
	/* vfork: the racer's page tables are not copied for a child that only
	 * execs; every signal stays blocked in the child until it has reset
	 * them, so no handler of the racer's runs on the shared stack */
	pid_t pid = vfork();
	if (pid == 0)
		exec_child(sp, racer, null_fd);
	int saved = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (null_fd >= 0)
		close(null_fd);
	if (pid < 0) {
		errno = saved;
		return -1;
	}
	watch(pid, fn, owner);
	return pid;
}

pid_t spawn_helper(int (*run)(void *), void *arg, int keep_fd, child_exit_fn fn, void *owner)
{
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid_t racer = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != racer)
			_exit(127);
		close_from_3(keep_fd);
		reset_signals();
		_exit(run(arg));
	}
	int saved = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		errno = saved;
		return -1;
	}
	watch(pid, fn, owner);
	return pid;
}

void children_reap(void)
{
	int st;
	pid_t pid;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		int i = find(pid);
		if (i < 0)
			continue;
		struct child c = children[i];
		drop(i);
		if (c.fn)
			c.fn(c.owner, st);
	}
}

static void on_sigchld(evutil_socket_t sig, short what, void *arg)
{
	(void)sig, (void)what, (void)arg;
	children_reap();
}

void children_init(struct event_base *base)
{
	if (sigchld)
		return;
	sigchld = evsignal_new(base, SIGCHLD, on_sigchld, NULL);
	if (!sigchld || evsignal_add(sigchld, NULL) < 0) {
		fprintf(stderr, "sudoku-race: cannot watch for SIGCHLD\n");
		exit(2);
	}
	/* a child that ended before the handler was there sent its SIGCHLD
	 * to nobody */
	children_reap();
}

void children_forget(pid_t pid)
{
	int i = find(pid);
	if (i >= 0)
		children[i].fn = NULL;
}

void children_wait(pid_t pid, int *wstatus)
{
	int st = 0, i = find(pid);
	if (i >= 0)
		drop(i);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (wstatus)
		*wstatus = st;
}

int children_running(void)
{
	return nchildren;
}

void children_free(void)
{
	if (sigchld) {
		event_free(sigchld);
		sigchld = NULL;
	}
	free(children);
	children = NULL;
	nchildren = capchildren = 0;
}
