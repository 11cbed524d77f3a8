/* rt_device: the device part of a host cell. A cell that mixes device
 * code (__global__, __device__, __constant__ items, templates) with host
 * code, like a .cu file, is split in two texts of the cell's length, each
 * with the other's bytes blanked so line numbers stay. Text only: what
 * compiles the parts is the caller's. */
#ifndef RT_DEVICE_H
#define RT_DEVICE_H

#include "rt_lex.h"

/* Splits the cell read once into cell (its tokens over its text, or a
 * view over a text of the same layout). Returns 1 and sets *device and
 * *host (new strings of cell->src's length, caller frees) when it has
 * device items; 0 (both NULL) when it has none. #include of a
 * CUDA header goes to the device part, other includes to the host part,
 * #define lines to both, and type definitions (struct, union, enum,
 * typedef) that the device code uses to both; the host part then names a
 * `struct T {...};` (or union, enum) as T too (a typedef added on the definition's last
 * line), as C++ does. */
int rt_device_split(const rt_tokens_t *cell, char **device, char **host);

#endif
