int count = 1;
%who
