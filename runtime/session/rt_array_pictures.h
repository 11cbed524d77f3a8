/* rt_array_pictures: pictures of device arrays, on request from cells
 * (gpuc.h's ga_heatmap, ga_plot, ga_hist; docs/arrays.md "Pictures").
 * Each shows one display in the notebook; a failure ends the cell with
 * its kind (ShapeError, FreedArrayError, ...) through ga_api_fail.
 *
 * Reading the elements and choosing what to show is here; drawing is
 * rt_chart's. Complex arrays are drawn by their magnitude |z|. */
#ifndef RT_ARRAY_PICTURES_H
#define RT_ARRAY_PICTURES_H

#include "ga_array.h"

/* A 2-D array as a PNG heatmap (viridis) with a colour bar and its min
 * and max: text/html (the image beside an SVG colour bar), image/png
 * alone, and text/plain describing it. Arrays over 512 cells a side are
 * shown strided (every k-th row and column), and the description says
 * so: only the shown rows are copied from the device (whole rows, when the
 * column step is 64 or less; else only the shown cells). */
void rt_array_heatmap(ga_array_t *a);

/* A 1-D array as an SVG line chart of value against index. Over 2000
 * elements, the min and max of each of 1000 buckets (so spikes show);
 * every element is read, in chunks of 1 Mi. Non-finite values are left
 * out. */
void rt_array_plot(ga_array_t *a);

/* A histogram of the values of an array of any shape as an SVG bar chart
 * of `bins` bins (<= 0: 50; at most 1000) over its finite range. Reads
 * every element twice (range, then counts), in chunks of 1 Mi elements:
 * host memory stays small and nothing is sampled. */
void rt_array_hist(ga_array_t *a, int bins);

#endif
