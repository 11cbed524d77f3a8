/* rt_device: a .cu-style cell as nvcc's one translation unit means it,
 * for the split that compiles its device part apart (NVRTC, or the
 * simulator's g++) from its host part. It takes the cell read once (its
 * tokens; each item's tokens are a view of them, never lexed again) and
 * writes text: what compiles the parts is the caller's.
 *
 * A cell that mixes device code (__global__, __device__, __constant__
 * items) with host code is split in two texts of the cell's lines, each
 * with the other's bytes blanked, so line numbers stay:
 * - device: items with device words; a `__host__ __device__` function goes
 *   to both (the host's copy without the CUDA words); #include of a CUDA
 *   header (cuda*, curand*, cooperative_groups, cub/, thrust/);
 * - both: #define and other directives; `using namespace N;` and
 *   `namespace A = N;` (each side gets an empty `namespace N {}` in front,
 *   so the side that does not declare N accepts it);
 * - host: everything else, function templates without device words
 *   included. The declarations device code may use too, as nvcc lets it
 *   (type declarations: struct, union, enum, typedef, `using` aliases,
 *   class templates; namespace-scope constants of scalar type with a
 *   constant initialiser, `const int N = 1024;`), are the host part's:
 *   the caller gives them to device code with rt_device_declarations, one
 *   by one, so that a later cell can declare each again. */
#ifndef RT_DEVICE_H
#define RT_DEVICE_H

#include "rt_lex.h"

/* Returns 1 and sets *device and *host (new strings of cell->src's
 * layout, caller frees) when the cell read into cell (a cell's tokens, or
 * a view of them over a text of the same layout: a `%%cuda` body with its
 * magic line blanked) has device items; 0 (both NULL) when it has none.
 * A `struct T {...};` (or union, enum) both sides get is named T on the
 * host too (a typedef added on the definition's last line), as in C++. */
int rt_device_split(const rt_tokens_t *cell, char **device, char **host);

/* Non-zero when text (a host part) holds more than preprocessor lines,
 * comments and blanks. */
int rt_device_has_code(const char *text);

/* Receives one declaration: text (borrowed for the call) is the
 * declaration alone, after as many newlines as put it on its line of the
 * cell. */
typedef void (*rt_device_decl_fn)(void *ctx, const char *text);

/* Calls fn for each declaration of host code read into read (a host
 * cell's tokens or a view of them, or the host part of a .cu-style cell
 * read once by its caller) that later device code may use, as it could
 * in one .cu file: #define lines, type declarations and namespace-scope
 * constants as rt_device_split gives them to both sides. Returns how many. */
int rt_device_declarations(const rt_tokens_t *read, rt_device_decl_fn fn, void *ctx);

#endif
