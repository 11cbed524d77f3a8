%who
