/* Attempts (attempt.h), from a free list: a puzzle of an easy file makes
 * one, and its memory comes back for the next. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "racer/attempt.h"
#include "racer/util.h"

#define CHUNK 1024

struct chunk {
	struct chunk *next;
	struct attempt a[CHUNK];
};

static struct chunk *chunks;
static struct attempt *free_list;

struct attempt *attempt_new(struct puzzle *pz, uint64_t seq, int spec)
{
	if (!free_list) {
		struct chunk *c = xmalloc(sizeof *c);
		c->next = chunks;
		chunks = c;
		for (int i = CHUNK - 1; i >= 0; i--) {
			c->a[i].next_free = free_list;
			free_list = &c->a[i];
		}
	}
	struct attempt *a = free_list;
	free_list = a->next_free;
	*a = (struct attempt){.pz = pz, .seq = seq, .proc = -1, .spec = (uint8_t)spec};
	return a;
}

void attempt_free(struct attempt *a)
{
	a->pz = NULL;
	a->next_free = free_list;
	free_list = a;
}

void attempt_free_all(void)
{
	while (chunks) {
		struct chunk *c = chunks;
		chunks = c->next;
		free(c);
	}
	free_list = NULL;
}
