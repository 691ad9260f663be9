"""Sources: the numbered registry and citation audit (registry), fetching and keeping the
pages the notes cite (fetch, extract, store), the user's own documents (local), and the
check of claims against their pages (claims)."""
