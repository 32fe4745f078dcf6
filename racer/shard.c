/* The parts of a --shards run (shard.h): started, their answers merged in
 * input order, signals passed on, their ends turned into one status.
 *
 * Each part writes into a pipe of its own. The head part's answers go to
 * standard output as they come; a later part's are held until every part
 * before it has ended, up to HOLD_MAX bytes, and then it is no longer read
 * (it waits, as it would for a slow reader). A part that ends by a signal
 * the run did not pass on has lost its answers: the parts after it are
 * stopped and nothing of theirs is written, so the output never skips a
 * puzzle.
 *
 * Their standard error comes through pipes as well, a whole line at a time:
 * a line that an earlier part said word for word is said once (a cache
 * that cannot be opened, a worker left out: every part finds the same). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "racer/options.h"
#include "racer/shard.h"
#include "racer/shard_plan.h"
#include "racer/spawn.h"
#include "racer/util.h"

/* A later part's answers held in memory at most: 800,000 9x9 answers. */
#define HOLD_MAX ((size_t)64 << 20)
#define READ_MOST 65536

struct shard {
	struct shard_part part;
	pid_t pid;             /* 0 once it has ended */
	int wstatus;
	int fd;                /* its answers' read end; -1 once read to the end */
	struct event *read_ev;
	struct evbuffer *held; /* read and not written yet */
	int err_fd;            /* its standard error's read end; -1 once read to the end */
	struct event *err_ev;
	struct evbuffer *err_buf; /* a line begun */
};

/* The input's FILE i, or NULL for standard input ("-", or no FILE). */
static const char *file_name(int i)
{
	const char *name = opt.nargs ? opt.args[i] : "-";
	return strcmp(name, "-") == 0 ? NULL : name;
}

static struct shard *shards;
static int nshards;
static int head;          /* the part whose answers are written now */
static int lost_from;     /* nshards, or the first part whose answers are lost */
static struct event_base *base;
static struct event *sig_int, *sig_term, *out_watch;
static struct event *out_ev;  /* standard output (a pipe or socket) has room again */
static int saved_flags = -1;  /* standard output's flags before O_NONBLOCK */
static int exit_signal;   /* passed on to the parts */
static bool out_closed;   /* standard output's reader went: the rest is dropped */
static bool out_error;

/* Lines said on standard error, with the part that said each first. */
#define SAID_MOST 1024
static struct said {
	char *text;
	int part;
} said[SAID_MOST];
static int nsaid;

/* Whether another part said this line already (it is remembered). */
static bool said_elsewhere(const char *line, int part)
{
	for (int i = 0; i < nsaid; i++)
		if (strcmp(said[i].text, line) == 0)
			return said[i].part != part;
	if (nsaid < SAID_MOST)
		said[nsaid++] = (struct said){xstrdup(line), part};
	return false;
}

/* One line the part said (its racer's, or a worker's). */
static void pass_line(const struct shard *s, const char *line)
{
	if (!said_elsewhere(line, (int)(s - shards)))
		fprintf(stderr, "%s\n", line);
}

/* The part's complete lines to standard error (all: what is left too). */
static void pass_messages(struct shard *s, bool all)
{
	size_t len;
	char *line;
	while ((line = evbuffer_readln(s->err_buf, &len, EVBUFFER_EOL_LF))) {
		pass_line(s, line);
		free(line);
	}
	len = evbuffer_get_length(s->err_buf);
	if (all && len > 0) {
		evbuffer_add(s->err_buf, "", 1);
		pass_line(s, (const char *)evbuffer_pullup(s->err_buf, -1));
		evbuffer_drain(s->err_buf, len + 1);
	}
}

static void close_messages(struct shard *s)
{
	pass_messages(s, true);
	if (s->err_ev)
		event_del(s->err_ev);
	if (s->err_fd >= 0)
		close(s->err_fd);
	s->err_fd = -1;
}

static void check_end(void)
{
	for (int k = 0; k < nshards; k++) {
		struct shard *s = &shards[k];
		if (s->pid || s->fd >= 0)
			return;
	}
	if (!out_closed && head < lost_from)
		return; /* answers still to write */
	/* every part has ended: what they said is in the pipes (a worker that
	 * outlived its part is not waited for) */
	for (int k = 0; k < nshards; k++) {
		struct shard *s = &shards[k];
		while (s->err_fd >= 0 && read_pipe(s->err_buf, s->err_fd, READ_MOST) > 0)
			;
		close_messages(s);
	}
	event_base_loopbreak(base);
}

static void messages_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)what;
	struct shard *s = arg;
	ssize_t n = read_pipe(s->err_buf, fd, READ_MOST);
	if (n < 0)
		return;
	if (n == 0)
		close_messages(s);
	else
		/* a line that does not end is passed on as it is, a piece at a time */
		pass_messages(s, evbuffer_get_length(s->err_buf) > READ_MOST);
}

static void close_part(struct shard *s)
{
	event_del(s->read_ev);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	evbuffer_drain(s->held, evbuffer_get_length(s->held));
}

/* Standard output is gone: each part sees its pipe closed, as a whole run
 * would see standard output, and ends by itself. */
static void output_gone(void)
{
	if (out_closed)
		return;
	out_closed = true;
	for (int k = 0; k < nshards; k++)
		close_part(&shards[k]);
	if (out_watch)
		event_del(out_watch);
	check_end();
}

/* Writes what is held of the head part. A pipe or socket that is full
 * (O_NONBLOCK, as the racer's own output) stops the reading of the head
 * part until out_ev says there is room: the parts wait on their pipes, as
 * for any slow reader, and signals are heard meanwhile. */
static void write_held(struct shard *s)
{
	while (!out_closed && evbuffer_get_length(s->held) > 0) {
		if (evbuffer_write(s->held, STDOUT_FILENO) >= 0)
			continue;
		if (errno == EINTR)
			continue;
		if ((errno == EAGAIN || errno == EWOULDBLOCK) && out_ev) {
			event_add(out_ev, NULL);
			event_del(s->read_ev);
			return;
		}
		if (errno != EPIPE) {
			warn("write error: %s", strerror(errno));
			out_error = true;
		}
		output_gone();
	}
}

/* The head part's answers written as far as they go; once it has been
 * read to its end, on to the next part (past every one read to its end
 * meanwhile, once its answers are written). */
static void next_head(void)
{
	while (head < nshards && !out_closed) {
		struct shard *s = &shards[head];
		if (head >= lost_from) {
			for (int k = head; k < nshards; k++)
				close_part(&shards[k]);
			break;
		}
		write_held(s);
		if (evbuffer_get_length(s->held) > 0)
			break; /* standard output is full: writable_cb goes on */
		if (s->fd >= 0) {
			event_add(s->read_ev, NULL); /* again, if full output stopped it */
			break;
		}
		head++;
	}
	check_end();
}

static void writable_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	next_head();
}

static void read_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)what;
	struct shard *s = arg;
	ssize_t n = read_pipe(s->held, fd, READ_MOST);
	if (n < 0)
		return;
	bool is_head = s == &shards[head];
	if (n > 0) {
		if (is_head)
			write_held(s);
		else if (evbuffer_get_length(s->held) >= HOLD_MAX)
			event_del(s->read_ev); /* read on once it is the head */
		return;
	}
	/* the end of its answers */
	event_del(s->read_ev);
	close(s->fd);
	s->fd = -1;
	if (is_head)
		next_head();
	else
		check_end();
}

static void pass_on(int sig)
{
	for (int k = 0; k < nshards; k++)
		if (shards[k].pid)
			kill(shards[k].pid, sig);
}

static void part_ended(void *owner, int wstatus)
{
	struct shard *s = owner;
	int k = (int)(s - shards);
	s->pid = 0;
	s->wstatus = wstatus;
	/* 0-2: it answered what it read; 128+N after the signal passed on */
	bool whole = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) <= 2;
	bool told = exit_signal && (WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) == exit_signal
							  : WEXITSTATUS(wstatus) == 128 + exit_signal);
	if (!whole && !told && k < lost_from) {
		char how[48];
		if (WIFSIGNALED(wstatus))
			snprintf(how, sizeof how, "by signal %d", WTERMSIG(wstatus));
		else
			snprintf(how, sizeof how, "with status %d", WEXITSTATUS(wstatus));
		/* where it starts, as the racer names a puzzle's place */
		const char *file = file_name(s->part.file);
		warn("part %d of %d (from %s%sline %ld) ended %s: the answers stop at its last one%s", k + 1,
		     nshards, file ? file : "", file ? ": " : "", opt.line_offset + s->part.lines + 1, how,
		     k + 1 < nshards ? ", the parts after it are stopped" : "");
		lost_from = k + 1;
		for (int j = k + 1; j < nshards; j++) {
			if (shards[j].pid)
				kill(shards[j].pid, SIGTERM);
			close_part(&shards[j]);
		}
	}
	check_end();
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	(void)what, (void)arg;
	if (!exit_signal)
		exit_signal = (int)sig;
	pass_on((int)sig);
}

/* A part's own options, kept while it starts. */
struct part_options {
	char range[64], lines[48], jobs[24];
};

/* The part's command line: the run's options, then its own, then its
 * FILEs (none: standard input). */
static char **part_argv(char **argv, const struct shard_part *pt, int jobs, struct part_options *o)
{
	int nopt = opt.option_words;
	char **a = xmalloc((size_t)(nopt + 8 + pt->nfiles) * sizeof *a);
	int n = 0;
	a[n++] = argv[0];
	for (int i = 1; i < nopt; i++)
		a[n++] = argv[i];
	if (pt->ranged) {
		if (pt->to_end)
			snprintf(o->range, sizeof o->range, "--byte-range=%zu-", pt->from);
		else
			snprintf(o->range, sizeof o->range, "--byte-range=%zu-%zu", pt->from, pt->to);
		snprintf(o->lines, sizeof o->lines, "--line-offset=%ld", opt.line_offset + pt->lines);
		a[n++] = o->range;
		a[n++] = o->lines;
	}
	snprintf(o->jobs, sizeof o->jobs, "--jobs=%d", jobs);
	a[n++] = o->jobs;
	a[n++] = "--shards=1";
	a[n++] = "--";
	for (int i = 0; i < pt->nfiles && opt.nargs; i++)
		a[n++] = opt.args[pt->file + i];
	a[n] = NULL;
	return a;
}

static void start_part(struct shard *s, const char *self, char **argv, int jobs, int in_fd)
{
	int p[2], e[2];
	if (pipe2(p, O_CLOEXEC) < 0 || pipe2(e, O_CLOEXEC) < 0)
		die("cannot make a pipe: %s", strerror(errno));
	struct part_options o;
	char **a = part_argv(argv, &s->part, jobs, &o);
	struct spawn_program sp = {.path = self,
				   .argv = a,
				   .stdin_fd = in_fd,
				   .stdout_fd = p[1],
				   .stderr_fd = e[1],
				   .die_with_racer = true,
				   .own_group = true};
	s->pid = spawn_program(&sp, part_ended, s);
	int saved = errno;
	free(a);
	close(p[1]);
	close(e[1]);
	if (s->pid < 0)
		die("cannot start a part of the run: %s", strerror(saved));
	s->fd = p[0];
	s->err_fd = e[0];
	(void)fcntl(s->fd, F_SETFL, O_NONBLOCK);
	(void)fcntl(s->err_fd, F_SETFL, O_NONBLOCK);
	s->held = evbuffer_new();
	s->err_buf = evbuffer_new();
	s->read_ev = event_new(base, s->fd, EV_READ | EV_PERSIST, read_cb, s);
	s->err_ev = event_new(base, s->err_fd, EV_READ | EV_PERSIST, messages_cb, s);
	if (!s->held || !s->err_buf || !s->read_ev || !s->err_ev || event_add(s->err_ev, NULL) < 0 ||
	    event_add(s->read_ev, NULL) < 0)
		die("out of memory");
}

static int run_parts(char **argv, const char *self, const struct shard_part *parts, int n, int jobs, int in_fd)
{
	if (!(base = event_base_new()))
		die("cannot create the event loop");
	children_init(base);
	sig_int = evsignal_new(base, SIGINT, on_signal, NULL);
	sig_term = evsignal_new(base, SIGTERM, on_signal, NULL);
	if (!sig_int || !sig_term || evsignal_add(sig_int, NULL) < 0 || evsignal_add(sig_term, NULL) < 0)
		die("cannot set up signal handling");
	out_watch = stdout_watch_new(base, output_gone);
	if ((saved_flags = stdout_nonblock()) >= 0 &&
	    !(out_ev = event_new(base, STDOUT_FILENO, EV_WRITE, writable_cb, NULL)))
		die("out of memory");
	shards = xcalloc((size_t)n, sizeof *shards);
	nshards = lost_from = n;
	double total = 0;
	for (int k = 0; k < n; k++)
		total += (double)parts[k].bytes;
	for (int k = 0; k < n; k++) {
		shards[k].part = parts[k];
		shards[k].fd = shards[k].err_fd = -1;
		/* -j's processes shared out by the parts' sizes, one at least */
		int part_jobs = (int)(jobs * (double)parts[k].bytes / total + 0.5);
		start_part(&shards[k], self, argv, part_jobs < 1 ? 1 : part_jobs, in_fd);
	}
	event_base_dispatch(base);

	/* the highest of the parts' 0-2 (any other end: a lost part, or the
	 * signal passed on) */
	int status = 0;
	for (int k = 0; k < n; k++) {
		int w = shards[k].wstatus;
		if (WIFEXITED(w) && WEXITSTATUS(w) <= 2 && WEXITSTATUS(w) > status)
			status = WEXITSTATUS(w);
		event_free(shards[k].read_ev);
		event_free(shards[k].err_ev);
		evbuffer_free(shards[k].held);
		evbuffer_free(shards[k].err_buf);
	}
	for (int i = 0; i < nsaid; i++)
		free(said[i].text);
	if (lost_from < n || out_error)
		status = 2;
	if (exit_signal)
		status = 128 + exit_signal;
	free(shards);
	if (out_watch)
		event_free(out_watch);
	if (out_ev)
		event_free(out_ev);
	stdout_restore(saved_flags);
	event_free(sig_int);
	event_free(sig_term);
	children_free();
	event_base_free(base);
	return status;
}

/* Whether the input is regular files only (standard input alone counts,
 * when it is one): their sizes in sizes[], their total in *total. A file
 * that cannot be looked at is the whole run's to report. */
static bool input_sizes(size_t *sizes, size_t *total)
{
	bool regular = true, reported = false;
	*total = 0;
	for (int i = 0; i < (opt.nargs ? opt.nargs : 1) && regular; i++) {
		const char *name = file_name(i);
		struct stat st;
		if (name ? stat(name, &st) < 0 : fstat(STDIN_FILENO, &st) < 0) {
			regular = false;
			reported = true;
		} else if (!S_ISREG(st.st_mode) || (!name && opt.nargs > 1)) {
			regular = false;
		} else {
			sizes[i] = (size_t)st.st_size;
			*total += sizes[i];
		}
	}
	if (opt.shards > 1 && !regular && !reported)
		warn("--shards: the input is not regular files: it is raced whole");
	return regular;
}

/* The parts of a span (parts[span->cuts] at most): its whole files, or
 * the cuts of its file. Returns how many. */
static int span_parts(const struct shard_span *span, const size_t *sizes, struct shard_part *parts)
{
	struct shard_part whole = {.file = span->file, .nfiles = span->nfiles};
	for (int i = 0; i < span->nfiles; i++)
		whole.bytes += sizes[span->file + i];
	if (span->cuts < 2) {
		parts[0] = whole;
		return 1;
	}
	const char *name = file_name(span->file);
	int fd = name ? open(name, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	size_t size = sizes[span->file];
	void *data = fd >= 0 ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	if (name && fd >= 0)
		close(fd);
	int n = data == MAP_FAILED ? 1 : shard_plan(data, size, span->cuts, parts);
	if (data != MAP_FAILED)
		munmap(data, size);
	if (n < 2) {
		parts[0] = whole;
		return 1;
	}
	for (int k = 0; k < n; k++) {
		parts[k].file = span->file;
		parts[k].nfiles = 1;
		parts[k].ranged = true;
		parts[k].bytes = parts[k].to - parts[k].from;
	}
	return n;
}

int shard_run_if_wanted(char **argv, int jobs)
{
	if (opt.command != CMD_RACE || opt.shards == 1 || opt.range_from >= 0 || opt.progress || opt.stats)
		return -1;
	/* too few processes for a second part, however big the input: its
	 * files are not even looked at */
	if (!opt.shards && shard_default_count(jobs, SIZE_MAX) < 2)
		return -1;
	int nfiles = opt.nargs ? opt.nargs : 1;
	size_t *sizes = xcalloc((size_t)nfiles, sizeof *sizes), total;
	int want = 1;
	if (input_sizes(sizes, &total) && total > 0)
		want = opt.shards ? opt.shards : shard_default_count(jobs, total);
	struct shard_span *spans = xmalloc((size_t)nfiles * sizeof *spans);
	int nspans = want > 1 ? shard_spans(sizes, nfiles, want, spans) : 0, most = 0;
	for (int i = 0; i < nspans; i++)
		most += spans[i].cuts;
	struct shard_part *parts = xmalloc((size_t)(most ? most : 1) * sizeof *parts);
	int n = 0;
	for (int i = 0; i < nspans; i++)
		n += span_parts(&spans[i], sizes, parts + n);
	char self[PATH_MAX];
	int status = -1;
	if (n > 1 && self_path(self))
		status = run_parts(argv, self, parts, n, jobs, file_name(0) ? -1 : STDIN_FILENO);
	free(parts);
	free(spans);
	free(sizes);
	return status;
}
