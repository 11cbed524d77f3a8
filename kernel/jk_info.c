#include "jk_info.h"

#include "gpuc_config.h"
#include "jk_wire.h"

json_t *jk_info_reply(void)
{
    return json_pack(
        "{s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s, s:s, s:s}, s:s, s:[{s:s, s:s}, {s:s, s:s}], "
        "s:b}",
        "status", "ok", "protocol_version", JK_PROTOCOL_VERSION, "implementation", "gpuc",
        "implementation_version", GPUC_VERSION, "language_info", "name", "c", "version", "C11",
        "mimetype", "text/x-csrc", "file_extension", ".c", "pygments_lexer", "c",
        "codemirror_mode", "text/x-csrc", "banner",
        "gpuc " GPUC_VERSION " — C and CUDA in Jupyter: cells compiled by TCC, state kept "
        "between cells, crashes caught.",
        "help_links", "text", "gpuc user guide", "url",
        "https://github.com/gpuc/gpuc/blob/main/docs/cells.md", "text", "gpuc architecture",
        "url", "https://github.com/gpuc/gpuc/blob/main/docs/architecture.md", "debugger", 0);
}
