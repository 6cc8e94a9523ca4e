/** Paging of every list (docs/api.md#using-the-api). */
export interface Page { offset: number, size: number }
export interface Sort<F extends string> { field: F, dir: 'asc' | 'desc' }
export interface Found<T> { items: T[], count: number }
