/* Which grids each method can take on a device, and the emulated device. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "bf_tree.h"
#include "cp_tree.h"
#include "cpw_team.h"
#include "dlx_tree.h"
#include "gpu_run.h"
#include "opbf_team.h"
#include "lib/grid.h"

void gpu_emulated_limits(struct gpu_limits *lim)
{
	/* an H100 (compute capability 9.0): 1024 threads and 227 KiB of
	 * shared memory per block, 132 multiprocessors, 80 GB */
	memset(lim, 0, sizeof *lim);
	lim->max_threads_per_block = 1024;
	lim->shared_per_block = 227L * 1024;
	lim->global_mem = 80LL * 1000 * 1000 * 1000;
	lim->multiprocessors = 132;
	lim->cc_major = 9;
	lim->cc_minor = 0;
	snprintf(lim->name, sizeof lim->name, "emulated sm_90");
}

int gpu_spbf_threads(int wanted, int cells, const struct gpu_limits *lim)
{
	long fit = lim->shared_per_block / spbf_thread_bytes(cells);
	if (fit > lim->max_threads_per_block)
		fit = lim->max_threads_per_block;
	if (wanted > fit)
		wanted = (int)fit;
	return wanted < 1 ? 1 : wanted;
}

int gpu_method_max_box(enum gpu_method m, const struct gpu_limits *lim)
{
	int best = 0;
	for (int box = GRID_MIN_BOX; box <= GRID_MAX_BOX; box++) {
		int cells = box * box * box * box;
		int ok = 0;
		switch (m) {
		case GPU_SPBF: /* one thread's board and stack in shared memory */
			ok = spbf_thread_bytes(cells) <= lim->shared_per_block;
			break;
		case GPU_OPBF: /* a thread per cell in one block */
			ok = box <= OPBF_MAX_BOX && cells <= lim->max_threads_per_block &&
			     (long)sizeof(struct opbf_shared) <= lim->shared_per_block;
			break;
		case GPU_PDLX: /* one thread's Dancing Links in global memory */
			ok = dlx_workspace_words(box) * 4 <= lim->global_mem / 4;
			break;
		case GPU_CPT: /* a 16-bit mask per cell, a fixed stack of levels */
			ok = box <= CPT_MAX_BOX;
			break;
		case GPU_CPW: /* a 16-bit mask per cell, the board in shared memory */
			ok = box <= CPW_MAX_BOX && (long)sizeof(struct cpw_shared) <= lim->shared_per_block;
			break;
		}
		if (ok)
			best = box;
	}
	return best;
}
