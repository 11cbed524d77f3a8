int f(int v) {
    int w = v * 2;
    return w + undefined_name;
}
