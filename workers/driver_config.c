/* The worker driver's settings: the options' values (driver_options.c
 * sets them) and the device the algorithm's init chose, with what follows
 * from them. A leaf: every mode reads it, it calls none of them. */
#include "config.h"

#include <stdbool.h>

#include "driver.h"

struct driver_options opt = {.count_limit = 1, .progress_ms = 250};

struct worker_init device = {.device = "cpu"};

int batch_threads(int max)
{
	int n = device.batches < 1 ? 2 : device.batches;
	return n < max ? n : max;
}

/* Whether this worker takes grids of box size box (the device may take
 * fewer than the algorithm). */
bool size_supported(int box)
{
	return box >= ALGO.min_box && box <= ALGO.max_box && box <= device.max_box;
}
