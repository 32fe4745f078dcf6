/* sudoku-race: the portfolio racer. main() sets up the parts (racer.h) around
 * one libevent loop and ends the run: when everything read has been
 * answered, when standard output is closed, or on SIGINT/SIGTERM. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "racer.h"
#include "store.h"

struct event_base *base;

static struct event *sig_int, *sig_term, *sig_chld;
static int exit_signal;      /* SIGINT or SIGTERM that ended the run */
static bool finishing;       /* the end has begun */
static bool loop_exit;       /* the loop has nothing more to do */
static bool system_error;    /* exit status 2 */
static bool input_failed;    /* exit status 2 */
static uint64_t start_ns;

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

/* --- the end of a run --- */

/* A loopbreak before the loop runs would be forgotten: hence the flag. */
static struct event *stdout_watch; /* see watch_stdout */

static void end_loop(void)
{
	loop_exit = true;
	event_base_loopbreak(base);
}

static void finish(void)
{
	if (finishing)
		return;
	finishing = true;
	race_stop();
	input_stop();
	store_flush();
	if (stdout_watch)
		event_del(stdout_watch);
	if (pool_started())
		pool_shutdown(end_loop);
	else
		end_loop();
}

void racer_check_finished(void)
{
	if (!finishing && input_done() && race_all_done())
		finish();
}

void racer_output_closed(void)
{
	finish();
}

void racer_system_error(void)
{
	system_error = true;
	finish();
}

void racer_input_error(void)
{
	input_failed = true;
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	(void)what;
	(void)arg;
	if (sig == SIGCHLD) {
		pool_reap();
		return;
	}
	if (!exit_signal)
		exit_signal = (int)sig;
	finish();
}

/* Workers are spawned onto fds 0 and 1 of their own; if the racer was
 * started with one of 0-2 closed, a pipe could land there. */
static void ensure_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
			if (n < 0 || n != fd)
				die("cannot open /dev/null");
		}
}

/* -j's default: the processors. */
static int default_jobs(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	return ncpu > MAX_JOBS ? MAX_JOBS : (int)ncpu;
}

/* The reader of standard output gone (`sudoku-race big.txt | head -1`):
 * a write would say so with EPIPE, but the next answer may be minutes away
 * while every worker runs on. A pipe or socket is looked at a few times a
 * second (poll says POLLERR or POLLHUP once its other end is closed), and
 * its loss ends the run at once, as EPIPE does. */
#define STDOUT_WATCH_MS 100

static void stdout_watch_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	struct pollfd pfd = {.fd = STDOUT_FILENO, .events = 0};
	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLERR | POLLHUP)))
		racer_output_closed();
}

static void watch_stdout(void)
{
	struct stat st;
	if (fstat(STDOUT_FILENO, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return;
	stdout_watch = event_new(base, -1, EV_PERSIST, stdout_watch_cb, NULL);
	struct timeval tv = {0, STDOUT_WATCH_MS * 1000};
	if (!stdout_watch || event_add(stdout_watch, &tv) < 0)
		die("cannot watch standard output");
}

static void setup_signals(void)
{
	sig_int = evsignal_new(base, SIGINT, on_signal, NULL);
	sig_term = evsignal_new(base, SIGTERM, on_signal, NULL);
	sig_chld = evsignal_new(base, SIGCHLD, on_signal, NULL);
	if (!sig_int || !sig_term || !sig_chld || evsignal_add(sig_int, NULL) < 0 ||
	    evsignal_add(sig_term, NULL) < 0 || evsignal_add(sig_chld, NULL) < 0)
		die("cannot set up signal handling");
}

static void free_signals(void)
{
	event_free(sig_int);
	event_free(sig_term);
	event_free(sig_chld);
}

/* --list-workers: start each worker once, print what its hello says. */
static void on_probe_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (pool_all_settled())
		finish();
}

static int list_workers(void)
{
	workers_setup_listing();
	pool_init(1, true);
	setup_signals();
	struct event *tick = event_new(base, -1, EV_PERSIST, on_probe_tick, NULL);
	struct timeval tv = {0, 10000};
	event_add(tick, &tv);
	pool_start_all();
	if (!loop_exit)
		event_base_dispatch(base);
	event_free(tick);
	workers_print_listing();
	pool_free();
	free_signals();
	workers_free();
	event_base_free(base);
	return exit_signal ? 128 + exit_signal : 0;
}

int main(int argc, char **argv)
{
	common_set_program(PROGRAM);
	common_set_before_message(progress_before_output);
	/* a closed reader is seen as EPIPE where it matters (output.c, pool.c) */
	signal(SIGPIPE, SIG_IGN);
	ensure_std_fds();
	options_parse(argc, argv);
	if (opt.command == CMD_CACHE)
		return store_command(opt.nargs, opt.args);

	/* A callback that activates itself again (input.c reads a regular file
	 * a chunk at a time that way) would otherwise run on and on in one
	 * pass of the loop, keeping signals and the workers' pipes waiting:
	 * the loop looks at them again after every few callbacks. */
	struct event_config *cfg = event_config_new();
	if (!cfg || event_config_set_max_dispatch_interval(cfg, NULL, 8, 0) < 0)
		die("cannot create the event loop");
	base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	if (!base)
		die("cannot create the event loop");
	if (opt.command == CMD_LIST_WORKERS)
		return list_workers();

	start_ns = now_ns();
	workers_setup();
	store_open();
	schedule_init();
	pool_init(opt.jobs ? opt.jobs : default_jobs(), false);
	race_init();
	output_init();
	progress_init();
	setup_signals();
	watch_stdout();
	input_init(opt.args, opt.nargs);
	input_start();
	racer_check_finished();
	if (!loop_exit)
		event_base_dispatch(base);

	store_finish();
	output_flush_all();
	/* after the last answers: its summary line comes below them */
	progress_end();
	if (opt.stats)
		stats_report(ms_since(start_ns));
	int status = output_status();
	if (input_failed || system_error)
		status = 2;
	if (exit_signal)
		status = 128 + exit_signal;

	if (stdout_watch)
		event_free(stdout_watch);
	input_free();
	race_free();
	output_free();
	pool_free();
	store_close();
	free_signals();
	workers_free();
	event_base_free(base);
	return status;
}
