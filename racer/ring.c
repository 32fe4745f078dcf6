/* The ring of puzzle slots (ring.h).
 *
 * Its memory: a 9x9 puzzle uses a slot's first kilobyte, and the slots in
 * use at once on an easy file were a page fault each. Past its first
 * SMALL_HEAD bytes (the few dozen slots a small file uses, where zeroing a
 * whole huge page would cost a one-puzzle run more than the puzzle) the
 * ring is in huge pages where the kernel gives them on request: the head
 * ends on a huge page's boundary. The mapping is not inherited: a child
 * execs at once (contrib/bench/schedule.md has the figures). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "racer/ring.h"
#include "racer/util.h"

#define HUGE_PAGE ((size_t)2 << 20)
#define SMALL_HEAD ((size_t)256 << 10)

/* The head and whole huge pages: what is mapped. */
static size_t ring_bytes(const struct ring *r)
{
	size_t bytes = (size_t)r->cap * r->slot_size;
	size_t tail = bytes > SMALL_HEAD ? bytes - SMALL_HEAD : 0;
	return SMALL_HEAD + ((tail + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
}

static char *map(size_t size)
{
	/* mapped a huge page longer, the ends cut off, so that the head ends
	 * on a huge page's boundary */
	char *p = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("out of memory");
	size_t lead = (HUGE_PAGE - ((uintptr_t)p + SMALL_HEAD) % HUGE_PAGE) % HUGE_PAGE;
	if (lead)
		(void)munmap(p, lead);
	(void)munmap(p + lead + size, HUGE_PAGE - lead);
	p += lead;
#ifdef MADV_HUGEPAGE
	if (size > SMALL_HEAD)
		(void)madvise(p + SMALL_HEAD, size - SMALL_HEAD, MADV_HUGEPAGE);
#endif
#ifdef MADV_DONTFORK
	(void)madvise(p, size, MADV_DONTFORK);
#endif
	return p;
}

void ring_init(struct ring *r, size_t slot_size, uint64_t want)
{
	*r = (struct ring){.slot_size = slot_size, .cap = 512, .out = 1, .next = 1};
	while (r->cap < want)
		r->cap *= 2;
	r->mapped = ring_bytes(r);
	r->mem = map(r->mapped);
	r->slot_of = xcalloc(r->cap, sizeof *r->slot_of);
	r->free_slot = xmalloc(r->cap * sizeof *r->free_slot);
	for (r->nfree = 0; r->nfree < r->cap; r->nfree++)
		r->free_slot[r->nfree] = (uint32_t)(r->cap - 1 - r->nfree); /* slot 0 on top */
}

static void *slot(const struct ring *r, uint64_t seq)
{
	return r->mem + (size_t)r->slot_of[seq & (r->cap - 1)] * r->slot_size;
}

void *ring_next(struct ring *r)
{
	if (!r->next_claimed) {
		if (!r->nfree)
			die("internal error: the ring of puzzles is full");
		r->slot_of[r->next & (r->cap - 1)] = r->free_slot[--r->nfree];
		r->next_claimed = true;
	}
	return slot(r, r->next);
}

uint64_t ring_commit(struct ring *r)
{
	ring_next(r);
	r->next_claimed = false;
	return r->next++;
}

void *ring_at(const struct ring *r, uint64_t seq)
{
	if (!r->mem || seq < r->out || seq >= r->next)
		return NULL;
	return slot(r, seq);
}

void ring_release_oldest(struct ring *r)
{
	if (r->out == r->next)
		return;
	r->free_slot[r->nfree++] = r->slot_of[r->out & (r->cap - 1)];
	r->out++;
}

void ring_free(struct ring *r)
{
	if (!r->mem)
		return;
	(void)munmap(r->mem, r->mapped);
	free(r->slot_of);
	free(r->free_slot);
	*r = (struct ring){0};
}
