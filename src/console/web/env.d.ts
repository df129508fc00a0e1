// Stylesheets are imported for their side effect; Bun's bundler emits them as app.css.
declare module '*.css'
