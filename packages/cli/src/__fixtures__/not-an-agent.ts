export const notTheDefault = 1;
