struct rect { double w, h; };
double area(struct rect r) { return r.w * r.h; }
struct rect r1 = {2, 3.5};
r1.w += 1;
printf("%.1f x %.1f\n", r1.w, r1.h);
area(r1)
