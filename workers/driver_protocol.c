/* Protocol mode (PROTOCOL.md): a reader thread takes requests into a
 * queue, solving threads answer them in order; the output keeps lines
 * whole and lets final answers wait to go out in runs. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "line_reader.h"
#include "protocol/bulk.h"
#include "protocol/message.h"
#include "lib/number.h"
#include "driver.h"

static void send_cancelled(const char *id, bool later)
{
	char line[PROTO_ID_MAX + 16];
	send_msg(line, msg_write_cancelled(line, sizeof line, id), later);
}

/* An error about request id (NULL: about no request), its text formatted. */
static void send_error(const char *id, bool later, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void send_error(const char *id, bool later, const char *fmt, ...)
{
	char text[GRID_ERR_MAX + 256], line[sizeof text + PROTO_ID_MAX + 16];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	send_msg(line, msg_write_error(line, sizeof line, id, text), later);
}

/* --- protocol mode --- */

enum job_kind { JOB_SOLVE, JOB_ERROR, JOB_CLASH };

/* Where a job of the plain path (plain_solver_main) is: queued or in the
 * solver's run (the reader may still cancel it: acknowledged at once),
 * started (a cancel stops its search), answered (its id leaves the id set
 * with the next run; id_find skips it until then). The solver and the
 * reader move it on by compare-and-swap. Batches' jobs stay JOB_QUEUED. */
enum job_run { JOB_QUEUED, JOB_STARTED, JOB_ANSWERED, JOB_ACKED };

struct slot;

struct job {
	struct job *next, *prev; /* in the queue */
	struct job *same_hash;   /* in the id set's bucket */
	struct job **in_set;     /* what points to it there (NULL: not in the
				  * set, a duplicate's): removed in constant time */
	struct slot *slot;       /* taken from the queue into a batch: its slot */
	enum job_kind kind;
	char id[PROTO_ID_MAX];
	char text[GRID_ERR_MAX + 64]; /* JOB_ERROR, JOB_CLASH: the message */
	uint64_t seed;
	long limit_ms, count, progress_ms;
	atomic_bool cancelled;
	bool acked; /* its cancel was acknowledged while its batch ran on */
	uint64_t bulk_id; /* came in a bulk frame with this id (0: in a line) */
	atomic_int run; /* enum job_run */
	struct worker_ctx ctx; /* the plain path's: a cancel stops this job only */
	size_t room; /* bytes allocated for it (it is reused: spare_jobs) */
	/* last: a job is kept at its grid's size (make_job); the union's room
	 * is the grid's cells */
	// cppcheck-suppress unusedStructMember
	GRID_MEMBER(grid);
};

/* Jobs answered, kept for reuse (under queue_lock): a malloc in the reading
 * thread and a free in a solving thread for every puzzle cost more than an
 * easy puzzle's search (arena locks, and the heap trimmed and faulted back
 * in page by page). */
static struct job *spare_jobs;

/* Called with queue_lock held. */
static void spare_job(struct job *j)
{
	j->next = spare_jobs;
	spare_jobs = j;
}

static void free_jobs(struct job *j)
{
	while (j) {
		struct job *next = j->next;
		free(j);
		j = next;
	}
}

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_wake = PTHREAD_COND_INITIALIZER;
static struct job *queue_head, *queue_tail;
static long queue_len;
static bool input_done;
static atomic_bool quitting; /* set under queue_lock; the plain path reads it without */

/* The ids in flight, queued or being solved, each with its job: a new
 * request's id is checked, and a cancel finds its job, in constant time,
 * however long the queue (a ping waits behind no scan of it). Chained
 * through the jobs; at most PROTO_QUEUE_MAX + a few batches of ids, four to
 * a bucket then, none or one for the racer's few hundred in flight: a
 * table small enough to stay in the cache (contrib/bench/code-notes.md). */
#define ID_BUCKETS (1u << 14)
static struct job **id_set;

static uint32_t id_hash(const char *id)
{
	/* a number (the racer's ids count up) is its own hash: the ids in
	 * flight take neighbouring buckets, a few cache lines, where FNV
	 * scattered them, a miss per look-up */
	uint32_t h = 0;
	const char *c = id;
	for (; *c >= '0' && *c <= '9'; c++)
		h = h * 10 + (uint32_t)(*c - '0');
	if (*c == '\0' && c != id)
		return h & (ID_BUCKETS - 1);
	h = 2166136261u; /* FNV-1a */
	for (; *id; id++)
		h = (h ^ (unsigned char)*id) * 16777619u;
	return h & (ID_BUCKETS - 1);
}

/* The job in flight with this id, or NULL. Called with queue_lock held. */
static struct job *id_find(const char *id)
{
	for (struct job *j = id_set[id_hash(id)]; j; j = j->same_hash)
		if (strcmp(j->id, id) == 0 && atomic_load(&j->run) != JOB_ANSWERED)
			return j;
	return NULL;
}

static void id_add(struct job *j)
{
	struct job **b = &id_set[id_hash(j->id)];
	j->same_hash = *b;
	if (*b)
		(*b)->in_set = &j->same_hash;
	*b = j;
	j->in_set = b;
}

/* Called with queue_lock held, when j is no longer in flight: out of the
 * queue to be answered. */
static void id_remove(struct job *j)
{
	if (!j->in_set)
		return;
	*j->in_set = j->same_hash;
	if (j->same_hash)
		j->same_hash->in_set = j->in_set;
	j->in_set = NULL;
}

static void queue_push(struct job *j)
{
	j->next = NULL;
	j->prev = queue_tail;
	if (queue_tail)
		queue_tail->next = j;
	else
		queue_head = j;
	queue_tail = j;
	queue_len++;
}

static void queue_unlink(struct job *j)
{
	if (j->prev)
		j->prev->next = j->next;
	else
		queue_head = j->next;
	if (j->next)
		j->next->prev = j->prev;
	else
		queue_tail = j->prev;
	j->next = j->prev = NULL;
	queue_len--;
}

/* The batches being solved: one at a time, or for an algorithm with
 * solve_batch init's wi->batches (the GPU's expansion of one beside the
 * others' launches), each taken by a solving thread of its own; answers go
 * out in the order the requests came (turns, by a batch's place in the
 * queue). */
#define PROTO_SOLVERS 8 /* batch_threads' most */
struct slot {
	struct job **jobs; /* opt.batch at most */
	int n;
	struct worker_ctx *ctx;
	bool waiting; /* solved, waiting for its turn to answer */
	struct solve_result *whole_result; /* solve()'s: room for any solution */
	/* a batch's, kept from batch to batch (opt.batch each) */
	const struct grid **grids;
	enum solve_status *st;
	bool *ack;
	struct batch_results results;
};
static struct slot slots[PROTO_SOLVERS];
static int nslots;
static long turns_taken, turn_now;
static pthread_cond_t turn_wake = PTHREAD_COND_INITIALIZER;

/* The reader thread's job being read: with room for a grid of any size. */
static struct job job_read;

/* The defaults of a solve's fields: the worker's options. */
static struct msg_solve_fields solve_defaults(void)
{
	return (struct msg_solve_fields){
		.count = 1,
		.limit_ms = (long)(opt.time_limit * 1000),
		.has_seed = true,
		.seed = opt.seed,
	};
}

/* job_read made ready for a request: its id (idlen bytes, under
 * PROTO_ID_MAX: the codec checked it) and fields; its grid is left as it
 * is (a record's is read first). */
static struct job *job_begin(const char *id, size_t idlen, const struct msg_solve_fields *f)
{
	struct job *j = &job_read;
	j->next = j->prev = j->same_hash = NULL;
	j->in_set = NULL;
	j->slot = NULL;
	j->acked = false;
	j->bulk_id = 0;
	j->text[0] = '\0';
	/* (snprintf was a percent of the racer's time here) */
	memcpy(j->id, id, idlen);
	j->id[idlen] = '\0';
	atomic_init(&j->cancelled, false);
	j->kind = JOB_SOLVE;
	j->limit_ms = f->limit_ms;
	j->count = f->count;
	j->progress_ms = f->progress_ms;
	if (j->progress_ms > 0 && j->progress_ms < 10)
		j->progress_ms = 10;
	j->seed = f->seed;
	return j;
}

/* job_read, its grid read, checked: what the algorithm cannot take, or a
 * clash of its givens, answered when its turn comes. */
static void job_check(struct job *j)
{
	char err[GRID_ERR_MAX];
	if (!size_supported(j->grid.box)) {
		j->kind = JOB_ERROR;
		snprintf(j->text, sizeof j->text, "size %dx%d not supported (box sizes %d-%d)",
			 j->grid.side, j->grid.side, ALGO.min_box,
			 device.max_box < ALGO.max_box ? device.max_box : ALGO.max_box);
	} else if (j->count > 1 && ALGO.kind != WORKER_COMPLETE) {
		j->kind = JOB_ERROR;
		snprintf(j->text, sizeof j->text, "counting needs a complete worker");
	} else if (grid_check_givens(&j->grid, err, sizeof err) < 0) {
		j->kind = JOB_CLASH;
		snprintf(j->text, sizeof j->text, "%s", err);
	}
}

/* job_read kept at its grid's size (room for any grid is 4 kB; a queue of
 * 65,536 9x9 jobs takes 30 MB instead of 290, and the reader is not
 * slowed by page faults), a spare reused when it has the room. */
static struct job *job_keep(struct job **spares)
{
	struct job *j = &job_read;
	if (j->kind == JOB_ERROR)
		grid_init(&j->grid, GRID_MIN_BOX); /* the smallest: its cells are not read */
	size_t size = offsetof(struct job, grid) + grid_bytes(&j->grid);
	struct job *kept = *spares;
	size_t room = kept ? kept->room : 0;
	if (kept && room >= size) {
		*spares = kept->next;
	} else {
		room = size;
		kept = xmalloc(size);
	}
	memcpy(kept, j, size);
	kept->room = room;
	atomic_init(&kept->cancelled, false);
	atomic_init(&kept->run, JOB_QUEUED);
	return kept;
}

/* Turns a solve message into a job (one that may already be answered). */
static struct job *make_job(const struct msg *m, struct job **spares)
{
	const struct msg_solve_fields dflt = solve_defaults();
	char err[GRID_ERR_MAX];
	struct notation nt;
	struct msg_solve s;
	bool bad = msg_read_solve(m, &dflt, &s, err, sizeof err) < 0;
	struct job *j = job_begin(s.id, strnlen(s.id, PROTO_ID_MAX - 1), &s.f);
	if (bad) {
		j->kind = JOB_ERROR;
		snprintf(j->text, sizeof j->text, "bad field value: %s", err);
	} else if (grid_parse(s.grid, s.grid_len, &j->grid, &nt, err, sizeof err) < 0) {
		j->kind = JOB_ERROR;
		snprintf(j->text, sizeof j->text, "invalid puzzle: %s", err);
	} else {
		job_check(j);
	}
	return job_keep(spares);
}

/* Turns a bulk frame's record into a job, as make_job a solve: h is the
 * frame's head, bad_fields why its fields could not be read ("": they
 * could). NULL for a record with id 0, which names no request. */
static struct job *make_bulk_job(const uint8_t *rec, const struct bulk_head *h, const char *bad_fields,
				 struct job **spares)
{
	char id[U64_DECIMAL_SIZE], err[GRID_ERR_MAX];
	uint64_t n;
	int box = grid_box_for_side(h->side);
	bool bad_cell = bulk_get_solve(rec, box, &n, &job_read.grid, err, sizeof err) < 0;
	if (n == 0)
		return NULL;
	const char *d = u64_decimal(n, id);
	struct job *j = job_begin(d, strlen(d), &h->f);
	j->bulk_id = n;
	if (bad_fields[0]) {
		j->kind = JOB_ERROR;
		snprintf(j->text, sizeof j->text, "bad field value: %s", bad_fields);
	} else if (bad_cell) {
		j->kind = JOB_ERROR;
		snprintf(j->text, sizeof j->text, "invalid puzzle: %s", err);
	} else {
		job_check(j);
	}
	return job_keep(spares);
}

/* Called with queue_lock held: j's cancel is acknowledged while its batch
 * runs on (nothing is sent when it ends), and its id is free for a new
 * solve at once (PROTOCOL.md 4). */
static void acknowledged_early(struct job *j)
{
	j->acked = true;
	id_remove(j);
}

static void handle_cancel(const char *id)
{
	pthread_mutex_lock(&queue_lock);
	struct job *j = id_find(id);
	if (j && j->slot && !ALGO.solve_batch) {
		/* in the plain path's run: acknowledged now if not started, else
		 * its search stops and its final answer says so (or crossed) */
		int seen = JOB_QUEUED;
		bool ack_now = atomic_compare_exchange_strong(&j->run, &seen, JOB_ACKED);
		if (ack_now) {
			acknowledged_early(j);
		} else if (seen == JOB_STARTED) {
			atomic_store(&j->cancelled, true);
			ctx_stop(&j->ctx, STOP_CANCEL);
		}
		pthread_mutex_unlock(&queue_lock);
		if (ack_now)
			send_cancelled(id, false);
		return;
	}
	if (j && j->slot) {
		struct slot *sl = j->slot;
		atomic_store(&j->cancelled, true);
		bool all = true;
		for (int k = 0; k < sl->n; k++)
			all &= atomic_load(&sl->jobs[k]->cancelled);
		if (all && sl->ctx)
			ctx_stop(sl->ctx, STOP_CANCEL);
		/* a batch that goes on for the others, or one that waits for
		 * the batch before it, must not hold this acknowledgement back
		 * (PROTOCOL.md 8): send it now, and nothing when it answers */
		bool ack_now = (!all || sl->waiting) && !j->acked;
		if (ack_now)
			acknowledged_early(j);
		pthread_mutex_unlock(&queue_lock);
		if (ack_now)
			send_cancelled(id, false);
		return;
	}
	if (j) {
		queue_unlink(j);
		id_remove(j);
		spare_job(j);
	}
	pthread_mutex_unlock(&queue_lock);
	/* the message's id, equal to the job's: no copy of a job given up for
	 * reuse (an snprintf, 570 instructions a cancel) */
	if (j)
		send_cancelled(id, false);
}

/* Jobs parsed and not yet queued, at most RUN_MAX: the reader queues
 * them under one lock (see plain_solver_main). */
#define RUN_MAX 32
struct pending {
	struct job *job[RUN_MAX];
	int n;
};

/* Queues the pending jobs, in order: each is checked for a full queue and
 * a duplicate id as it goes in. The solving threads are woken once. */
static void queue_pending(struct pending *pd, struct job **spares)
{
	if (!pd->n)
		return;
	char refused[RUN_MAX][PROTO_ID_MAX];
	int nrefused = 0;
	pthread_mutex_lock(&queue_lock);
	for (int i = 0; i < pd->n; i++) {
		struct job *j = pd->job[i];
		if (queue_len >= PROTO_QUEUE_MAX) {
			memcpy(refused[nrefused++], j->id, sizeof j->id);
			j->next = *spares;
			*spares = j;
			continue;
		}
		if (id_find(j->id)) {
			j->kind = JOB_ERROR;
			snprintf(j->text, sizeof j->text, "duplicate id");
		} else {
			id_add(j);
		}
		queue_push(j);
	}
	if (!*spares) {
		*spares = spare_jobs;
		spare_jobs = NULL;
	}
	pthread_cond_signal(&queue_wake);
	pthread_mutex_unlock(&queue_lock);
	pd->n = 0;
	/* at once, out of turn: the racer learns to wait */
	for (int i = 0; i < nrefused; i++)
		send_error(refused[i], false, "queue full: %d requests are waiting", PROTO_QUEUE_MAX);
}

/* A bulk frame's records (PROTOCOL.md 13), its head read in m: each a
 * job, as a solve line's. Returns -1 when the rest of the input cannot be
 * read: a head without a count and a side, or records cut short. */
static int read_frame(struct line_reader *lr, const struct msg *m, struct pending *pd, struct job **spares)
{
	const struct msg_solve_fields dflt = solve_defaults();
	struct bulk_head h;
	char err[160], bad_fields[160] = "";
	long line = lr->lineno;
	if (bulk_read_head(m, &dflt, &h, err, sizeof err) < 0) {
		if (!h.n) {
			send_error(NULL, false, "line %ld: %s; the rest of the input is not read", line, err);
			return -1;
		}
		snprintf(bad_fields, sizeof bad_fields, "%s", err);
	}
	size_t size = bulk_solve_size(h.side);
	for (int i = 0; i < h.n; i++) {
		const unsigned char *rec;
		if (!line_reader_has(lr, size))
			queue_pending(pd, spares); /* before a wait for input */
		if (line_reader_bytes(lr, size, &rec) != LINE_OK) {
			send_error(NULL, false, "line %ld: the frame ends at record %d of %d", line, i + 1, h.n);
			return -1;
		}
		struct job *j = make_bulk_job(rec, &h, bad_fields, spares);
		if (!j) {
			send_error(NULL, false, "line %ld: record %d has id 0", line, i + 1);
			continue;
		}
		pd->job[pd->n++] = j;
		if (pd->n == RUN_MAX)
			queue_pending(pd, spares);
	}
	return 0;
}

static void *reader_main(void *arg)
{
	(void)arg;
	struct line_reader lr;
	if (line_reader_init(&lr, STDIN_FILENO, PROTO_LINE_MAX - 1) < 0)
		die("out of memory");
	/* the reader's own stock of spare jobs, refilled from spare_jobs while
	 * it holds the lock anyway; and the solves parsed since the queue was
	 * last taken, queued at once for a run of lines read at once, not one
	 * lock a line (and always before a wait for input, or another
	 * message: a cancel must find its job queued) */
	struct job *spares = NULL;
	struct pending pd = {.n = 0};
	for (;;) {
		char *line;
		size_t len;
		if (!line_reader_buffered(&lr))
			queue_pending(&pd, &spares);
		enum line_status st = line_reader_next(&lr, &line, &len);
		if (st == LINE_EOF || st == LINE_ERROR)
			break;
		if (st == LINE_OVERLONG) {
			send_error(NULL, false, "line %ld is longer than %d bytes", lr.lineno, PROTO_LINE_MAX);
			continue;
		}
		struct msg m;
		char err[128];
		if (msg_parse(line, len, &m, err, sizeof err) < 0) {
			send_error(NULL, false, "line %ld: %s", lr.lineno, err);
			continue;
		}
		if (m.type == MSG_SOLVE) {
			/* built before the lock is taken, once a puzzle */
			pd.job[pd.n++] = make_job(&m, &spares);
			if (pd.n == RUN_MAX)
				queue_pending(&pd, &spares);
			continue;
		}
		if (m.type == MSG_SOLVES) {
			if (read_frame(&lr, &m, &pd, &spares) < 0)
				break; /* its input is in doubt from here on: as at its end */
			continue;
		}
		queue_pending(&pd, &spares);
		switch (m.type) {
		case MSG_CANCEL:
			handle_cancel(m.id);
			break;
		case MSG_PING: {
			char pong[PROTO_LINE_MAX];
			send_msg(pong, msg_write_pong(pong, sizeof pong, m.argv[0]), false);
			break;
		}
		case MSG_QUIT:
			pthread_mutex_lock(&queue_lock);
			atomic_store(&quitting, true);
			for (int k = 0; k < nslots; k++) {
				if (slots[k].ctx)
					ctx_stop(slots[k].ctx, STOP_QUIT);
				if (!ALGO.solve_batch)
					for (int i = 0; i < slots[k].n; i++)
						if (atomic_load(&slots[k].jobs[i]->run) == JOB_STARTED)
							ctx_stop(&slots[k].jobs[i]->ctx, STOP_QUIT);
			}
			pthread_cond_broadcast(&queue_wake);
			pthread_cond_broadcast(&turn_wake);
			pthread_mutex_unlock(&queue_lock);
			free_jobs(spares);
			line_reader_free(&lr);
			return NULL;
		default:
			break; /* unknown or not for a worker: ignored (PROTOCOL.md 9) */
		}
	}
	queue_pending(&pd, &spares);
	free_jobs(spares);
	line_reader_free(&lr);
	pthread_mutex_lock(&queue_lock);
	input_done = true;
	pthread_cond_broadcast(&queue_wake);
	pthread_mutex_unlock(&queue_lock);
	return NULL;
}

static void send_final(const struct job *j, enum solve_status st, const struct solve_result *res,
		       enum stop_reason why, double ms)
{
	if (j->acked)
		return;
	if (atomic_load(&j->cancelled)) {
		send_cancelled(j->id, true);
		return;
	}
	char line[PROTO_LINE_MAX];
	const struct msg_effort effort = {res->nodes, ms};
	int n = -1;
	switch (st) {
	case SOLVE_SOLVED:
		if (!grid_verify(&j->grid, &res->solution, NULL, 0)) {
			/* never pass on a wrong answer, even our own */
			send_error(j->id, true, "internal error: %s found a wrong answer", ALGO.name);
			return;
		}
		if (j->count > 1) {
			n = msg_write_count(line, sizeof line, j->id, res->count, &res->solution, &effort, NULL);
		} else if (j->bulk_id) {
			/* asked in a frame: answered in one (PROTOCOL.md 13) */
			send_solution_record(j->bulk_id, &res->solution, &effort);
			return;
		} else {
			n = msg_write_solution(line, sizeof line, j->id, &res->solution, &effort);
		}
		break;
	case SOLVE_UNSAT:
		if (j->count > 1)
			n = msg_write_count(line, sizeof line, j->id, 0, NULL, &effort, NULL);
		else
			n = msg_write_unsat(line, sizeof line, j->id, &effort, NULL);
		break;
	case SOLVE_GAVEUP:
		n = msg_write_gaveup(line, sizeof line, j->id, res->reason, ms);
		break;
	case SOLVE_STOPPED:
		if (why == STOP_CANCEL)
			n = msg_write_cancelled(line, sizeof line, j->id);
		else
			n = msg_write_gaveup(line, sizeof line, j->id, "timeout", ms);
		break;
	}
	send_msg(line, n, true);
}

/* The answer of a job answered when it was read: its givens clash, or
 * the request was bad. */
static void send_answered(const struct job *j)
{
	if (j->kind == JOB_CLASH) {
		char line[PROTO_ID_MAX + 64];
		int len = ALGO.kind != WORKER_COMPLETE ? msg_write_gaveup(line, sizeof line, j->id, "unsat", -1)
			  : j->count > 1	       ? msg_write_count(line, sizeof line, j->id, 0, NULL, NULL, "clash")
						       : msg_write_unsat(line, sizeof line, j->id, NULL, "clash");
		send_msg(line, len, true);
	} else {
		send_error(j->id, true, "%s", j->text);
	}
}

/* ALGO.solve on a job's grid, into the slot's result, which has room for
 * any solution (worker.h); only the fields an algorithm may leave alone
 * are cleared. */
static enum solve_status solve_one(struct slot *sl, const struct grid *g, struct worker_ctx *ctx)
{
	struct solve_result *r = sl->whole_result;
	r->count = 0;
	r->nodes = 0;
	r->reason[0] = '\0';
	grid_init(&r->solution, GRID_MIN_BOX);
	return ALGO.solve(g, r, ctx);
}

/* Waits for this batch's turn to answer (its place in the queue). */
static void wait_turn(long turn)
{
	pthread_mutex_lock(&queue_lock);
	while (turn_now != turn)
		pthread_cond_wait(&turn_wake, &queue_lock);
	pthread_mutex_unlock(&queue_lock);
}

static void end_turn(void)
{
	pthread_mutex_lock(&queue_lock);
	turn_now++;
	pthread_cond_broadcast(&turn_wake);
	pthread_mutex_unlock(&queue_lock);
}

/* A batch's progress speaks for its first request that asked for progress
 * and is not cancelled: none once they all are (PROTOCOL.md 7: no progress
 * after a request's final message, and a cancel's acknowledgement is one).
 * The reader marks a cancel before it acknowledges it, and the
 * acknowledgement waits for out_lock, which the caller holds. */
static const char *batch_speaker(const struct worker_ctx *ctx)
{
	const struct slot *sl = ctx->owner;
	for (int i = 0; i < sl->n; i++)
		if (sl->jobs[i]->progress_ms > 0 && !atomic_load(&sl->jobs[i]->cancelled))
			return sl->jobs[i]->id;
	return NULL;
}

/* Solves the batch in slot sl and answers it in its turn. */
static void solve_jobs(struct slot *sl, struct job **jobs, int n, long turn)
{
	struct worker_ctx ctx = {.id = jobs[0]->id};
	long limit = 0, progress_ms = jobs[0]->progress_ms;
	for (int i = 0; i < n; i++) {
		limit = jobs[i]->limit_ms > limit ? jobs[i]->limit_ms : limit;
		/* a batch reports as often as the most eager of its requests */
		if (jobs[i]->progress_ms > 0 && (progress_ms <= 0 || jobs[i]->progress_ms < progress_ms))
			progress_ms = jobs[i]->progress_ms;
	}
	if (n > 1) {
		ctx.speaker = batch_speaker;
		ctx.owner = sl;
	}
	ctx_start(&ctx, (double)limit / 1000.0, progress_ms, jobs[0]->count, jobs[0]->seed);
	pthread_mutex_lock(&queue_lock);
	sl->ctx = &ctx;
	if (quitting)
		ctx_stop(&ctx, STOP_QUIT);
	pthread_mutex_unlock(&queue_lock);
	struct solve_result **res;
	enum solve_status *st = sl->st;
	if (n == 1) {
		st[0] = solve_one(sl, &jobs[0]->grid, &ctx);
		res = &sl->whole_result;
	} else {
		for (int i = 0; i < n; i++)
			sl->grids[i] = &jobs[i]->grid;
		res = batch_results(&sl->results, sl->grids, n);
		ALGO.solve_batch(sl->grids, n, res, st, &ctx);
	}
	double ms = worker_elapsed_ms(&ctx);
	if (nslots > 1) {
		/* still in the slot while it waits for its turn, so that a
		 * cancel finds its jobs; those cancelled already are
		 * acknowledged now (with one slot, its turn is now: the
		 * acknowledgement goes with the answers, and the lock is taken
		 * once a puzzle, not four times) */
		bool *ack = sl->ack;
		pthread_mutex_lock(&queue_lock);
		sl->waiting = true;
		for (int i = 0; i < n; i++) {
			ack[i] = atomic_load(&jobs[i]->cancelled) && !jobs[i]->acked;
			if (ack[i])
				acknowledged_early(jobs[i]);
		}
		pthread_mutex_unlock(&queue_lock);
		for (int i = 0; i < n; i++)
			if (ack[i])
				send_cancelled(jobs[i]->id, false);
		wait_turn(turn);
	}
	pthread_mutex_lock(&queue_lock);
	sl->ctx = NULL;
	sl->n = 0;
	sl->waiting = false;
	for (int i = 0; i < n; i++) {
		id_remove(jobs[i]);
		jobs[i]->slot = NULL;
	}
	bool quit = quitting;
	pthread_mutex_unlock(&queue_lock);
	if (!quit)
		for (int i = 0; i < n; i++)
			send_final(jobs[i], st[i], res[i], ctx_stop_reason(&ctx), ms);
	if (nslots > 1)
		end_turn();
	else
		turn_now++;
}

/* Called with queue_lock held: waits for a queued job (the answers so
 * far go out before the wait). False, with the lock released and the
 * answers out, when there will be none: quit, or the end of the input. */
static bool wait_for_work(void)
{
	if (!queue_head) {
		pthread_mutex_unlock(&queue_lock);
		flush_answers();
		pthread_mutex_lock(&queue_lock);
	}
	while (!queue_head && !input_done && !quitting)
		pthread_cond_wait(&queue_wake, &queue_lock);
	if (quitting || !queue_head) {
		pthread_mutex_unlock(&queue_lock);
		flush_answers();
		return false;
	}
	return true;
}

/* The plain path's clock: the end of the last puzzle solved, the start of
 * the next unless something was written since (a write may wait for the
 * racer to read, which is not the next puzzle's time). */
struct run_clock {
	uint64_t ns;
	unsigned long writes;
};

static void run_clock_read(struct run_clock *c)
{
	c->writes = atomic_load_explicit(&output_writes, memory_order_relaxed);
	c->ns = now_ns();
}

/* Solves one job of the plain path's run (see plain_solver_main), unless
 * the reader acknowledged its cancel first; answers it. */
static void answer_plain(struct slot *sl, struct job *j, struct run_clock *clock)
{
	/* its clock and stop flag are set before it can be seen started: a
	 * cancel or a quit that sees it started stops this search */
	if (j->kind == JOB_SOLVE) {
		if (clock->writes != atomic_load_explicit(&output_writes, memory_order_relaxed))
			run_clock_read(clock);
		ctx_start_at(&j->ctx, clock->ns, (double)j->limit_ms / 1000.0, j->progress_ms, j->count, j->seed);
		j->ctx.id = j->id;
	}
	int queued = JOB_QUEUED;
	if (!atomic_compare_exchange_strong(&j->run, &queued, JOB_STARTED))
		return; /* acknowledged by the reader */
	if (j->kind != JOB_SOLVE) {
		atomic_store(&j->run, JOB_ANSWERED);
		send_answered(j);
		return;
	}
	if (quitting)
		ctx_stop(&j->ctx, STOP_QUIT);
	enum solve_status st = solve_one(sl, &j->grid, &j->ctx);
	run_clock_read(clock);
	double ms = ctx_ms_to(&j->ctx, clock->ns);
	/* answered before the answer can go out: a client that reads it may
	 * use the id again at once */
	atomic_store(&j->run, JOB_ANSWERED);
	if (!quitting)
		send_final(j, st, sl->whole_result, ctx_stop_reason(&j->ctx), ms);
}

/* The plain path: an algorithm without solve_batch, one job at a time in
 * the main thread. It takes the queued jobs in runs of RUN_MAX under one
 * lock, and solves and answers each with none; the run's ids leave the id
 * set, and its jobs are kept for reuse, when it takes the next run. (Locks
 * a puzzle would send their cache line back and forth between the
 * reader's processor and the solver's: contrib/bench/code-notes.md.) A job
 * of the run stays the reader's to cancel, acknowledged at once, until the
 * solver starts it (job_run). */
static void *plain_solver_main(void *arg)
{
	struct slot *sl = arg;
	struct job **run = sl->jobs;
	for (;;) {
		pthread_mutex_lock(&queue_lock);
		for (int i = 0; i < sl->n; i++) {
			id_remove(run[i]);
			run[i]->slot = NULL;
			spare_job(run[i]);
		}
		sl->n = 0;
		if (!wait_for_work())
			break;
		int n = 0;
		while (queue_head && n < RUN_MAX) {
			struct job *j = queue_head;
			queue_unlink(j);
			j->slot = sl;
			run[n++] = j;
		}
		sl->n = n;
		/* The answers held go out once they outnumber the puzzles left
		 * queued: a racer that tops the queue up when it reads them
		 * does so while this thread still has work. Held until the
		 * queue ran dry, they went out as the solver went idle, and it
		 * stayed idle while the racer read them and sent more. */
		bool flush = atomic_load_explicit(&answers_held, memory_order_relaxed) > queue_len;
		pthread_mutex_unlock(&queue_lock);
		if (flush)
			flush_answers();
		struct run_clock clock;
		run_clock_read(&clock);
		for (int i = 0; i < n; i++)
			answer_plain(sl, run[i], &clock);
	}
	return NULL;
}

/* A solving thread of an algorithm with solve_batch: takes the next batch
 * from the queue into its slot. */
static void *batch_solver_main(void *arg)
{
	struct slot *sl = arg;
	struct job **copy = xmalloc((size_t)opt.batch * sizeof *copy);
	struct job *answered = NULL; /* for spare_jobs, when the lock is next held */
	for (;;) {
		int n = 0;
		pthread_mutex_lock(&queue_lock);
		while (answered) {
			struct job *next = answered->next;
			spare_job(answered);
			answered = next;
		}
		if (!wait_for_work())
			break;
		const long turn = turns_taken++;
		struct job *head = queue_head;
		if (head->kind != JOB_SOLVE) {
			/* already answered: keep its place in the order */
			queue_unlink(head);
			id_remove(head);
			pthread_mutex_unlock(&queue_lock);
			wait_turn(turn);
			send_answered(head);
			end_turn();
			head->next = answered;
			answered = head;
			continue;
		}
		/* a batch: solve jobs from the head with the same count */
		while (queue_head && queue_head->kind == JOB_SOLVE && n < opt.batch &&
		       queue_head->count == head->count && (n == 0 || ALGO.solve_batch)) {
			struct job *j = queue_head;
			queue_unlink(j);
			j->slot = sl;
			sl->jobs[n++] = j;
		}
		sl->n = n;
		pthread_mutex_unlock(&queue_lock);
		memcpy(copy, sl->jobs, (size_t)n * sizeof *copy);
		solve_jobs(sl, copy, n, turn);
		for (int i = 0; i < n; i++) {
			copy[i]->next = answered;
			answered = copy[i];
		}
	}
	free_jobs(answered);
	free(copy);
	return NULL;
}

int protocol_main(void)
{
	pthread_t reader, solver[PROTO_SOLVERS];
	signal(SIGPIPE, SIG_IGN);
	nslots = ALGO.solve_batch ? batch_threads(PROTO_SOLVERS) : 1;
	id_set = calloc(ID_BUCKETS, sizeof *id_set);
	if (!id_set)
		return 2;
	for (int k = 0; k < nslots; k++) {
		struct slot *sl = &slots[k];
		size_t njobs = (size_t)(opt.batch > RUN_MAX ? opt.batch : RUN_MAX);
		sl->jobs = xmalloc(njobs * sizeof *sl->jobs);
		sl->whole_result = xmalloc(sizeof *sl->whole_result);
		sl->grids = xmalloc((size_t)opt.batch * sizeof *sl->grids);
		sl->st = xmalloc((size_t)opt.batch * sizeof *sl->st);
		sl->ack = xmalloc((size_t)opt.batch * sizeof *sl->ack);
	}
	const struct msg_hello hello = {
		.name = ALGO.name,
		.version = PACKAGE_VERSION,
		.complete = ALGO.kind == WORKER_COMPLETE,
		.min_box = ALGO.min_box,
		.max_box = device.max_box < ALGO.max_box ? device.max_box : ALGO.max_box,
		.device = device.device,
		.detail = device.detail,
		.batch = opt.batch,
		.bulk = true,
	};
	char line[PROTO_LINE_MAX];
	send_msg(line, msg_write_hello(line, sizeof line, &hello), false);
	if (pthread_create(&reader, NULL, reader_main, NULL) != 0) {
		fprintf(stderr, "%s: cannot start the reader thread\n", program);
		return 2;
	}
	pthread_detach(reader);
	for (int k = 1; k < nslots; k++)
		if (pthread_create(&solver[k], NULL, batch_solver_main, &slots[k]) != 0) {
			fprintf(stderr, "%s: cannot start a solving thread\n", program);
			return 2;
		}
	if (ALGO.solve_batch)
		batch_solver_main(&slots[0]);
	else
		plain_solver_main(&slots[0]);
	for (int k = 1; k < nslots; k++)
		pthread_join(solver[k], NULL);
	return 0;
}

