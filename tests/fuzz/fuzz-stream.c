/* Fuzz target: the puzzle stream (lib/puzzle_stream.c), every input
 * format the workers and the racer read, one line after another. */
#include "config.h"

#include "fuzz_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct puzzle_stream ps;
	puzzle_stream_init(&ps);
	fuzz_feed(&ps, data, size, 0);
	return 0;
}
