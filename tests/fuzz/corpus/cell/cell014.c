complex_t i = {0, 1};
complex_t m = cmul(i, i);
m.re
