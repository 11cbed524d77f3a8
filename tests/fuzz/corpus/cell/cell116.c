int from_int(void) {
    char *p = 5;
    return p != 0;
}
from_int()
