/* sim_prelude: the CUDA C++ that a kernel cell compiled for the simulator
 * sees before its own code (threadIdx, __syncthreads, atomics, ...). */
#ifndef SIM_PRELUDE_H
#define SIM_PRELUDE_H

/* The prelude's text, to paste in front of the cell. Static. */
extern const char sim_prelude[];

#endif
