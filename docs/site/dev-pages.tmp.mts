import { mkdirSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { ApiModel } from '@microsoft/api-extractor-model';
import { entryPage, entryPagePath, indexPage } from './api-pages.ts';
const meta = JSON.parse(readFileSync('/tmp/models/meta.json', 'utf8'));
const models = meta.map((m: any) => ({ ...m, apiPackage: new ApiModel().loadPackage(`/tmp/models/${m.packageName.replace(/^@/, '').replace('/', '-')}.${m.entry.report.replace(/\.api\.md$/, '')}.api.json`) }));
mkdirSync('/work/wt/docsite/docs/api', { recursive: true });
writeFileSync('/work/wt/docsite/docs/api/index.md', indexPage(models));
for (const m of models) writeFileSync(`/work/wt/docsite/docs/${entryPagePath(m.importPath)}.md`, entryPage(m, models));
