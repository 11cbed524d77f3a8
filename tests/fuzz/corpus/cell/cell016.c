union bits b;
b.f = 1.0f;
b.u
