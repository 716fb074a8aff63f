/** This package's version; new projects depend on `^` it (checked against package.json by a test). */
export const VERSION = '0.1.0';
