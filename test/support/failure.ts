/** The error a call that must fail threw (the test fails if it succeeded): for asserting an SDK's error fields. */
export async function failure(promise: PromiseLike<unknown>): Promise<any> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected the call to fail')
}
