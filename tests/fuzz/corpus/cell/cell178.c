#include <zlib.h>
zlibVersion()[0] != 0
