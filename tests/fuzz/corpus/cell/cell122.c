int keep = 7;
int deref(int *p) {
    return *p;
}
