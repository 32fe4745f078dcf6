/* Unit tests: the ring of puzzle slots (racer/ring.c). */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "racer/ring.h"
#include "tap.h"

struct slot {
	uint64_t seq;
	char pad[100];
};

int main(void)
{
	struct ring r;
	ring_init(&r, sizeof(struct slot), 600);
	ok(r.cap == 1024, "the capacity is a power of two at least as large as asked (%llu)",
	   (unsigned long long)r.cap);
	ok(ring_empty(&r) && ring_room(&r) == 1024, "a new ring is empty, all room");
	ok(ring_at(&r, 1) == NULL, "no slot for a sequence number not added");

	struct slot *a = ring_next(&r);
	ok(a == ring_next(&r), "the next slot is the same until it is committed");
	a->seq = 1;
	ok(ring_commit(&r) == 1, "the first sequence number is 1");
	ok(ring_at(&r, 1) == a && !ring_empty(&r) && ring_room(&r) == 1023, "it is found by its number");

	for (uint64_t s = 2; s <= 1024; s++) {
		struct slot *x = ring_next(&r);
		x->seq = s;
		ring_commit(&r);
	}
	ok(ring_room(&r) == 0, "the ring holds as many as its capacity");
	bool all = true;
	for (uint64_t s = 1; s <= 1024; s++)
		all &= ((struct slot *)ring_at(&r, s))->seq == s;
	ok(all, "every number finds its own slot");

	ring_release_oldest(&r);
	ok(ring_at(&r, 1) == NULL && ring_room(&r) == 1, "the oldest released: gone, its room back");
	struct slot *b = ring_next(&r);
	ok(b == a, "the slot freed last is taken first (its pages stay warm)");
	b->seq = 1025;
	ok(ring_commit(&r) == 1025 && ring_at(&r, 1025) == b, "numbers go on past the capacity");

	for (uint64_t s = 2; s <= 1025; s++)
		ring_release_oldest(&r);
	ok(ring_empty(&r) && ring_room(&r) == 1024, "all released: empty again");
	ring_release_oldest(&r);
	ok(ring_empty(&r), "releasing an empty ring does nothing");

	/* an easy file: one puzzle in and out at a time uses one slot */
	void *first = ring_next(&r);
	bool same = true;
	for (int i = 0; i < 100; i++) {
		same &= ring_next(&r) == first;
		ring_commit(&r);
		ring_release_oldest(&r);
	}
	ok(same, "one puzzle at a time reuses one slot");
	ring_free(&r);
	ok(r.mem == NULL, "freed");
	return tap_done();
}
