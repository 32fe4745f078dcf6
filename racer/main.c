/* sudoku-race: the portfolio racer. main() sets up the parts around one
 * libevent loop, wires them (each takes its owner's callbacks and names
 * none of its callers), and ends the run: when everything read has been
 * answered, when standard output is closed, or on SIGINT/SIGTERM.
 *
 * Data flows one way: input -> race -> output. What the workers and the
 * cache say is recorded as it arrives; the run moves on in one deferred
 * tick per loop turn (tick_cb): the race's dispatch, the answers written
 * in input order, the input resumed where there is room, the end. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <event2/event.h>

#include "racer/input.h"
#include "racer/options.h"
#include "racer/output.h"
#include "racer/pool.h"
#include "racer/progress.h"
#include "racer/queue.h"
#include "racer/race.h"
#include "racer/report.h"
#include "racer/schedule.h"
#include "racer/shard.h"
#include "racer/spawn.h"
#include "racer/stats.h"
#include "racer/store.h"
#include "racer/util.h"
#include "racer/workers.h"

/* Unwritten output above which reading pauses. */
#define BACKLOG_MAX (1 << 20)

static struct event_base *loop;
static struct event *sig_int, *sig_term, *tick_ev, *stdout_watch;
static int exit_signal;      /* SIGINT or SIGTERM that ended the run */
static bool finishing;       /* the end has begun */
static bool loop_exit;       /* the loop has nothing more to do */
static bool system_error;    /* exit status 2 */
static bool input_failed;    /* exit status 2 */
static bool tick_due;

/* --- the end of a run --- */

static void end_loop(void)
{
	loop_exit = true; /* a loopbreak before the loop runs would be forgotten */
	event_base_loopbreak(loop);
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

/* --- the tick --- */

static void wake(void)
{
	if (!tick_due) {
		tick_due = true;
		event_active(tick_ev, EV_TIMEOUT, 0);
	}
}

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	tick_due = false;
	if (finishing)
		return;
	race_tick();
	const struct puzzle *pz;
	bool wrote = false;
	while ((pz = queue_next_done())) {
		output_puzzle(pz);
		queue_release_done();
		wrote = true;
	}
	if (wrote)
		input_resume();
	if (input_done() && queue_all_done())
		finish();
}

static bool can_take(uint64_t n)
{
	return queue_room() >= n && output_backlog() < BACKLOG_MAX && !store_backlogged();
}

static void input_failed_cb(void)
{
	input_failed = true;
}

static const struct input_hooks input_hooks = {.can_take = can_take, .failed = input_failed_cb, .ended = wake};

static void output_closed(bool error)
{
	system_error |= error;
	finish();
}

static const struct output_hooks output_hooks = {
	.before_write = progress_before_output,
	.closed = output_closed,
	.drained = input_resume,
};

static const struct race_hooks race_hooks = {.wake = wake, .progress = progress_message};

/* --- signals, descriptors --- */

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	(void)what;
	(void)arg;
	if (!exit_signal)
		exit_signal = (int)sig;
	finish();
}

/* Workers are spawned onto fds 0 and 1 of their own; if the racer was
 * started with one of 0-2 closed, a pipe could land there: /dev/null takes
 * its place. True when standard output was closed. */
static bool ensure_std_fds(void)
{
	bool out_closed = false;
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
			if (n < 0 || n != fd)
				die("cannot open /dev/null");
			out_closed |= fd == STDOUT_FILENO;
		}
	return out_closed;
}

/* -j's default: the processors. */
static int default_jobs(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	return ncpu > MAX_JOBS ? MAX_JOBS : (int)ncpu;
}

static void setup_signals(void)
{
	sig_int = evsignal_new(loop, SIGINT, on_signal, NULL);
	sig_term = evsignal_new(loop, SIGTERM, on_signal, NULL);
	if (!sig_int || !sig_term || evsignal_add(sig_int, NULL) < 0 || evsignal_add(sig_term, NULL) < 0)
		die("cannot set up signal handling");
}

static void free_signals(void)
{
	event_free(sig_int);
	event_free(sig_term);
}

/* --- --list-workers: each worker started once, its hello printed --- */

static void on_probe_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	if (pool_all_settled())
		finish();
}

static int list_workers(void)
{
	workers_setup_listing(opt.worker_lists, opt.nworker_lists);
	stats_init(nspecs);
	pool_init(loop, 1, NULL, NULL);
	setup_signals();
	struct event *probe = event_new(loop, -1, EV_PERSIST, on_probe_tick, NULL);
	struct timeval tv = {0, 10000};
	event_add(probe, &tv);
	pool_start_all();
	if (!loop_exit)
		event_base_dispatch(loop);
	event_free(probe);
	workers_print_listing(opt.json);
	pool_free();
	free_signals();
	workers_free();
	options_free();
	stats_free();
	children_free();
	event_base_free(loop);
	return exit_signal ? 128 + exit_signal : 0;
}

int main(int argc, char **argv)
{
	/* a closed reader is seen as EPIPE where it matters */
	signal(SIGPIPE, SIG_IGN);
	bool out_closed = ensure_std_fds();
	common_set_program(PROGRAM);
	common_set_before_message(progress_before_output);
	options_parse(argc, argv);
	common_set_quiet(opt.quiet);
	if (out_closed)
		die("standard output is closed: the answers would be lost");
	if (opt.command == CMD_CACHE)
		return store_command(opt.nargs, opt.args);
	int jobs = opt.jobs ? opt.jobs : default_jobs();
	int sharded = shard_run_if_wanted(argv, jobs);
	if (sharded >= 0) {
		options_free();
		return sharded;
	}

	/* A callback that activates itself again (the input reads a regular
	 * file a chunk at a time that way) would otherwise run on and on in
	 * one pass of the loop, keeping signals and the workers' pipes
	 * waiting: the loop looks at them again after every few callbacks. */
	struct event_config *cfg = event_config_new();
	if (!cfg || event_config_set_max_dispatch_interval(cfg, NULL, 8, 0) < 0)
		die("cannot create the event loop");
	loop = event_base_new_with_config(cfg);
	event_config_free(cfg);
	if (!loop)
		die("cannot create the event loop");
	children_init(loop);
	if (opt.command == CMD_LIST_WORKERS)
		return list_workers();

	uint64_t start_ns = now_ns();
	if (!(tick_ev = event_new(loop, -1, 0, tick_cb, NULL)))
		die("out of memory");
	workers_setup(loop, opt.worker_lists, opt.nworker_lists);
	stats_init(nspecs);
	store_open(loop, queue_cached, NULL);
	store_on_drained(input_resume);
	schedule_init();
	pool_init(loop, jobs, &race_pool_events, NULL);
	race_init(loop, &race_hooks);
	output_init(loop, &output_hooks);
	progress_init(loop);
	race_set_progress_ms(progress_interval_ms());
	setup_signals();
	stdout_watch = stdout_watch_new(loop, finish);
	input_init(loop, opt.args, opt.nargs, &input_hooks);
	input_start();
	wake();
	if (!loop_exit)
		event_base_dispatch(loop);

	store_finish();
	output_flush_all();
	/* after the last answers: its summary line comes below them */
	progress_end();
	if (opt.stats)
		report_stats(ms_since(start_ns));
	int status = output_status();
	if (input_failed || system_error)
		status = 2;
	if (exit_signal)
		status = 128 + exit_signal;

	if (stdout_watch)
		event_free(stdout_watch);
	event_free(tick_ev);
	input_free();
	race_free();
	output_free();
	pool_free();
	store_close();
	free_signals();
	workers_free();
	options_free();
	stats_free();
	children_free();
	event_base_free(loop);
	return status;
}
