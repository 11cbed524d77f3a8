/* jk_info: what the kernel says about itself, in kernel_info_reply (on
 * the shell and on the control channel alike). */
#ifndef JK_INFO_H
#define JK_INFO_H

#include <jansson.h>

/* Content of kernel_info_reply (new reference; NULL when out of memory). */
json_t *jk_info_reply(void);

#endif
