import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'

export const chromiumPath = '/usr/bin/chromium'
export const artifacts = join(import.meta.dir, '..', 'artifacts')

/**
 * Debian's Chromium, headless, driven by playwright-core (never a downloaded browser). A machine without it
 * fails here loudly: a browser test that quietly skips would pass while testing nothing.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `Chromium is not installed at ${chromiumPath}: run \`apt-get install -y chromium\` (the browser tests cannot run without it)`,
    )
  }
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
}

/** Full-page screenshot in test/artifacts/ (gitignored), for a person to look at after the run. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(artifacts, { recursive: true })
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true })
}

/**
 * Collects what the page complains about: script errors and CSP violations ("Refused to …"). HTTP error
 * statuses the console handles on purpose (401 before sign-in, 404 for a crafted ID) are not complaints.
 */
export function watchConsole(page: Page): string[] {
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of (401|404)\b/.test(message.text()))
      problems.push(message.text())
  })
  page.on('pageerror', (error) => problems.push(error.message))
  return problems
}

/** A fresh browser context signed in to the console as `username`, on the overview; `problems` collects what the page complains about. */
export async function signInPage(
  browser: Browser,
  url: string,
  username: string,
  password: string,
): Promise<{ page: Page; problems: string[]; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
  const page = await context.newPage()
  const problems = watchConsole(page)
  await page.goto(`${url}/console`)
  await page.getByLabel('Username').fill(username)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
  return { page, problems, close: () => context.close() }
}
