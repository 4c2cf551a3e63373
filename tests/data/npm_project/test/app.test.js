'use strict';
// Each test starts an HTTP server on loopback (supertest listens on port 0) and talks to it.
// CORDON_TEST_COUNT multiplies the tests (the benchmark runs hundreds).
const assert = require('assert');
const http = require('http');
const request = require('supertest');
const { makeApp } = require('../app');

const count = Number(process.env.CORDON_TEST_COUNT || 10);

describe('express app on loopback', function () {
  for (let i = 0; i < count; i++) {
    it(`says hello ${i}`, async function () {
      const res = await request(makeApp()).get(`/hello/n${i}`).expect(200);
      assert.deepStrictEqual(res.body, { hello: `n${i}` });
    });
    it(`adds ${i}`, async function () {
      const res = await request(makeApp()).post('/sum').send({ numbers: [i, 1, 2] }).expect(200);
      assert.strictEqual(res.body.sum, i + 3);
    });
    it(`refuses bad input ${i}`, async function () {
      await request(makeApp()).post('/sum').send({ numbers: 'x' }).expect(400);
    });
  }

  it('serves a shared server to many clients at once', async function () {
    const server = http.createServer(makeApp());
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, () => request(server).get('/slow').expect(200)));
      assert.strictEqual(results.length, 20);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
