// Typeset the maths pymdownx.arithmatex marked (class "arithmatex": \( … \) inline, \[ … \]
// display) with KaTeX, on every page Material shows, including those loaded by its instant
// navigation (document$ emits each time a page's content is replaced).
document$.subscribe(({ body }) => {
  renderMathInElement(body, {
    delimiters: [
      { left: "\\(", right: "\\)", display: false },
      { left: "\\[", right: "\\]", display: true },
    ],
    throwOnError: false,
  });
});
