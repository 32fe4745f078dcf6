/* Protocol mode's output: whole lines to standard output, shared by the
 * protocol loop (driver_protocol.c) and the algorithms' progress lines
 * (driver_context.c). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "protocol/bulk.h"

pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* Answers waiting in the buffer below (see send_buf). */
atomic_long answers_held;
atomic_ulong output_writes;

/* Protocol mode: whole lines to standard output, never split between two
 * writers. Final answers may wait in a buffer while more puzzles are queued
 * (one write, and one wake-up of the racer, for a run of easy puzzles); it
 * is written out once it outnumbers the puzzles left in the queue (the
 * plain solver's check), before the solver waits for work, when it grows
 * large, and before any other line (progress, cancel acknowledgements,
 * pong). */
static char answers[32768];
static size_t answers_len;

/* The solutions frame open at the end of the held answers (PROTOCOL.md
 * 13): where its head goes (-1: none open), its side, its records so far.
 * Its head is written when it closes: before any other line is held, and
 * at a flush. */
static long frame_at = -1;
static int frame_side, frame_n;

static void close_frame(void)
{
	if (frame_at < 0)
		return;
	bulk_write_solutions_head(answers + frame_at, frame_n, frame_side);
	frame_at = -1;
}

static void write_all(const char *buf, size_t n)
{
	atomic_fetch_add_explicit(&output_writes, 1, memory_order_relaxed);
	while (n) {
		ssize_t k = write(STDOUT_FILENO, buf, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			/* the racer is gone: nobody wants our answers */
			_exit(0);
		}
		buf += k;
		n -= (size_t)k;
	}
}

/* Called with out_lock held. */
static void flush_answers_locked(void)
{
	close_frame();
	if (answers_len)
		write_all(answers, answers_len);
	answers_len = 0;
	atomic_store_explicit(&answers_held, 0, memory_order_relaxed);
}

void flush_answers(void)
{
	pthread_mutex_lock(&out_lock);
	flush_answers_locked();
	pthread_mutex_unlock(&out_lock);
}

/* One more answer held. Called with out_lock held: the only writer, so no
 * read-modify-write is needed. */
static void hold_one(void)
{
	atomic_store_explicit(&answers_held, atomic_load_explicit(&answers_held, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

static void send_buf(const char *buf, size_t n, bool later)
{
	pthread_mutex_lock(&out_lock);
	if (later && n <= sizeof answers) {
		if (answers_len + n > sizeof answers)
			flush_answers_locked();
		close_frame();
		memcpy(answers + answers_len, buf, n);
		answers_len += n;
		hold_one();
	} else {
		flush_answers_locked();
		write_all(buf, n);
	}
	pthread_mutex_unlock(&out_lock);
}

void send_msg_locked(const char *line, int len)
{
	if (len > 0) {
		flush_answers_locked();
		write_all(line, (size_t)len);
	}
}

/* A line written by the codec (msg_write_*: its length, -1 when it did not
 * fit, which the line limit rules out); later: a final answer, which may
 * wait in the buffer (see above). */
void send_msg(const char *line, int len, bool later)
{
	if (len > 0)
		send_buf(line, (size_t)len, later);
}

void send_solution_record(uint64_t id, const struct grid *solution, const struct msg_effort *e)
{
	size_t size = bulk_solution_size(solution->side);
	pthread_mutex_lock(&out_lock);
	bool joins = frame_at >= 0 && frame_side == solution->side && frame_n < BULK_FRAME_MAX;
	if (answers_len + size + (joins ? 0 : BULK_SOLUTIONS_HEAD) > sizeof answers) {
		flush_answers_locked();
		joins = false;
	}
	if (!joins) {
		close_frame();
		frame_at = (long)answers_len;
		frame_side = solution->side;
		frame_n = 0;
		answers_len += BULK_SOLUTIONS_HEAD;
	}
	bulk_put_solution((uint8_t *)answers + answers_len, id, solution, e);
	answers_len += size;
	frame_n++;
	hold_one();
	pthread_mutex_unlock(&out_lock);
}
