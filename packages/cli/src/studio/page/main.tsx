/**
 * The studio page's entry: bundled with React into one inline script (bundle-page.ts). Every
 * text from the server (a model's reply, a tool's input or output) is rendered by React as
 * text, never as markup: it is untrusted.
 */
import './studio.css';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';

const root = document.getElementById('root');
if (root !== null) createRoot(root).render(<App />);
