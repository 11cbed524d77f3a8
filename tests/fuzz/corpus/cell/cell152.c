struct rect *rp = malloc(sizeof *rp);
rp->w = 4; rp->h = 0.25;
area(*rp)
