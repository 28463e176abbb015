/**
 * `npm run lint:links`: every relative link in the Markdown, and every `#anchor` (in the same file or
 * in another), must resolve. remark-validate-links checks files and headings on disk only, offline;
 * `repository: false` keeps it from reading the Git remote to rewrite links to the repository's web
 * address (there is none to check against here).
 */
import remarkValidateLinks from "remark-validate-links";

export default {
  plugins: [[remarkValidateLinks, { repository: false }]],
};
