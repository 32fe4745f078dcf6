/* The algorithm's side of worker.h: the stop checks it polls, progress,
 * counting, seeds, and the stages' busy times (--timing). */
#include "config.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/message.h"
#include "driver.h"

/* --- the algorithm's side of worker.h --- */

bool worker_should_stop(struct worker_ctx *ctx)
{
	/* a search long enough to poll: the answers before it go out now, so
	 * that the racer's clock of this puzzle starts when it does */
	if (atomic_load_explicit(&answers_held, memory_order_relaxed))
		flush_answers();
	if (atomic_load_explicit(&ctx->stop, memory_order_relaxed))
		return true;
	if (ctx->deadline_ns && now_ns() >= ctx->deadline_ns) {
		ctx_stop(ctx, STOP_TIMEOUT);
		return true;
	}
	return false;
}

void ctx_stop(struct worker_ctx *ctx, enum stop_reason why)
{
	if (why == STOP_QUIT) {
		atomic_store(&ctx->stop, STOP_QUIT);
	} else {
		int none = STOP_NONE;
		atomic_compare_exchange_strong(&ctx->stop, &none, (int)why);
	}
}

enum stop_reason ctx_stop_reason(struct worker_ctx *ctx)
{
	return (enum stop_reason)atomic_load(&ctx->stop);
}

bool worker_progress_wanted(struct worker_ctx *ctx)
{
	return ctx->progress_ns && now_ns() >= ctx->next_progress_ns;
}

long worker_count_limit(const struct worker_ctx *ctx)
{
	return ctx->count_limit;
}

uint64_t worker_seed(const struct worker_ctx *ctx)
{
	return ctx->seed;
}

double ctx_ms_to(const struct worker_ctx *ctx, uint64_t end_ns)
{
	return (double)(end_ns - ctx->start_ns) / 1e6;
}

double worker_elapsed_ms(const struct worker_ctx *ctx)
{
	return ctx_ms_to(ctx, now_ns());
}

void ctx_start(struct worker_ctx *ctx, double limit_s, long progress_ms, long count,
		      uint64_t seed)
{
	ctx_start_at(ctx, now_ns(), limit_s, progress_ms, count, seed);
}

void ctx_start_at(struct worker_ctx *ctx, uint64_t start_ns, double limit_s, long progress_ms, long count,
		  uint64_t seed)
{
	atomic_store(&ctx->stop, STOP_NONE); /* a reader may stop it (driver_protocol.c) */
	ctx->start_ns = start_ns;
	ctx->deadline_ns = limit_s > 0 ? ctx->start_ns + (uint64_t)(limit_s * 1e9) : 0;
	ctx->progress_ns = progress_ms > 0 ? (uint64_t)progress_ms * 1000000u : 0;
	ctx->next_progress_ns = ctx->start_ns + ctx->progress_ns;
	ctx->count_limit = count;
	ctx->seed = seed;
}

void worker_progress(struct worker_ctx *ctx, const char *fmt, ...)
{
	char fields[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fields, sizeof fields, fmt, ap);
	va_end(ap);
	uint64_t now = now_ns();
	ctx->next_progress_ns = now + ctx->progress_ns;
	if (opt.protocol) {
		/* a batch's speaks for one of its requests, or for none */
		pthread_mutex_lock(&out_lock);
		const char *id = ctx->speaker ? ctx->speaker(ctx) : ctx->id;
		if (id) {
			char line[sizeof fields + PROTO_ID_MAX + 16];
			send_msg_locked(line, msg_write_progress(line, sizeof line, id, fields));
		}
		pthread_mutex_unlock(&out_lock);
	} else {
		pthread_mutex_lock(&out_lock);
		fprintf(stderr, "%s: %s: %s (%.1f s)\n", program, ctx->where, fields,
			(double)(now - ctx->start_ns) / 1e9);
		pthread_mutex_unlock(&out_lock);
	}
}

void worker_notice(struct worker_ctx *ctx, const char *fmt, ...)
{
	if (opt.protocol)
		return;
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&out_lock);
	fprintf(stderr, "%s: %s: %s\n", program, ctx->where, text);
	pthread_mutex_unlock(&out_lock);
}

/* --- stages' busy times (--timing) --- */

#define MAX_STAGES 16

static struct {
	const char *name;
	double ms;
	bool algorithm; /* the algorithm's, inside "solve" */
} stages[MAX_STAGES];
static int nstages;
static pthread_mutex_t stage_lock = PTHREAD_MUTEX_INITIALIZER;

bool worker_timing_wanted(void)
{
	return opt.timing;
}

void stage_add(const char *stage, double ms, bool algorithm)
{
	pthread_mutex_lock(&stage_lock);
	int i = 0;
	while (i < nstages && strcmp(stages[i].name, stage) != 0)
		i++;
	if (i == nstages && i < MAX_STAGES) {
		stages[i].name = stage;
		stages[i].ms = 0;
		stages[i].algorithm = algorithm;
		nstages++;
	}
	if (i < nstages)
		stages[i].ms += ms;
	pthread_mutex_unlock(&stage_lock);
}

void worker_stage_time(const char *stage, double ms)
{
	stage_add(stage, ms, true);
}

void stage_report(double wall_ms, long puzzles)
{
	fprintf(stderr,
		"%s: timing: %.3f s wall, %ld puzzles solved; each stage's busy time (summed over its "
		"threads; stages overlap) and its share of the wall:\n",
		program, wall_ms / 1e3, puzzles);
	for (int i = 0; i < nstages; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s%s", stages[i].algorithm ? "solve: " : "", stages[i].name);
		fprintf(stderr, "%s: timing: %-18s %9.3f s %6.1f%%\n", program, name, stages[i].ms / 1e3,
			100.0 * stages[i].ms / wall_ms);
	}
}

/* --- a solving thread's results for solve_batch --- */

struct solve_result **batch_results(struct batch_results *br, const struct grid *const *puzzles, int n)
{
	int cells = 0;
	for (int i = 0; i < n; i++)
		cells = puzzles[i]->cells > cells ? puzzles[i]->cells : cells;
	const size_t stride = (solve_result_size(cells) + 7) & ~(size_t)7;
	if ((size_t)n * stride > br->size) {
		free(br->mem);
		br->size = (size_t)n * stride;
		br->mem = xmalloc(br->size);
	}
	if (n > br->cap) {
		br->cap = n;
		br->res = xrealloc(br->res, (size_t)n * sizeof *br->res);
	}
	for (int i = 0; i < n; i++)
		br->res[i] = (struct solve_result *)(void *)(br->mem + (size_t)i * stride);
	return br->res;
}

void batch_results_free(struct batch_results *br)
{
	free(br->mem);
	free(br->res);
	*br = (struct batch_results){0};
}
