/* rt_api_table: the addresses of the functions of rt_api.h, for linking
 * cells (TCC) and %%cc code. */
#ifndef RT_API_TABLE_H
#define RT_API_TABLE_H

#include "rt_api.h"

/* NULL-terminated, static. */
extern const rt_symbol_t rt_api_symbols[];

#endif
