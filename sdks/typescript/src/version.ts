/** The release of this package; the fsbox binary and the Python and Go SDKs carry the same one. */
export const VERSION = "0.1.0";
