// A small Chinese and Japanese retrieval set made for toolgate: requests as a user would type them (no spaces)
// against tools described in the same language. Both modes must rank the right tool first in most cases.
import { describe, expect, it } from "vitest";
import type { SearchMode } from "../../../src/core/config.ts";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { tool } from "../../support/tools.ts";

const zhTools = [
  tool("get_weather", "查询指定城市的天气预报，包括气温、降水和风力"),
  tool("translate_text", "把一段文字翻译成另一种语言"),
  tool("send_email", "给指定的收件人发送电子邮件"),
  tool("search_flights", "查询两个城市之间的航班和机票价格"),
  tool("stock_quote", "获取股票的最新价格和涨跌幅"),
  tool("calendar_create", "在日历中创建一个新的会议或日程"),
  tool("exchange_rate", "查询两种货币之间的实时汇率"),
  tool("restaurant_search", "搜索附近的餐厅并按评分排序"),
  tool("news_headlines", "获取今天的新闻头条"),
  tool("map_route", "规划两个地点之间的驾车或步行路线"),
];

const zhRequests: readonly (readonly [string, string])[] = [
  ["明天北京天气怎么样", "get_weather"],
  ["帮我把这句话翻译成英文", "translate_text"],
  ["给老板发一封邮件", "send_email"],
  ["下周从上海到深圳的机票多少钱", "search_flights"],
  ["苹果公司股票现在的价格", "stock_quote"],
  ["帮我在日历上安排明天下午的会议", "calendar_create"],
  ["美元兑人民币汇率是多少", "exchange_rate"],
  ["附近有什么好吃的餐厅", "restaurant_search"],
];

const jaTools = [
  tool("get_weather", "指定した都市の天気予報を取得します"),
  tool("translate_text", "文章を別の言語に翻訳します"),
  tool("send_email", "指定した宛先にメールを送信します"),
  tool("search_train", "電車の乗り換えと時刻表を検索します"),
  tool("set_alarm", "指定した時刻にアラームを設定します"),
  tool("currency_convert", "通貨を換算して為替レートを表示します"),
  tool("find_hotel", "ホテルの空室と料金を検索します"),
];

const jaRequests: readonly (readonly [string, string])[] = [
  ["東京の明日の天気を教えて", "get_weather"],
  ["この文を英語に翻訳してください", "translate_text"],
  ["田中さんにメールを送って", "send_email"],
  ["新宿から渋谷までの電車の時刻表", "search_train"],
  ["明日の朝七時にアラームをセットして", "set_alarm"],
  ["大阪のホテルを予約したい", "find_hotel"],
];

const MODES: readonly SearchMode[] = ["substring", "minisearch"];

function firstHits(tools: readonly ToolDefinition[], requests: readonly (readonly [string, string])[], mode: SearchMode): string[] {
  const index = createSearchIndex(mode, tools);
  return requests.filter(([query, expected]) => index.search(query)[0] === expected).map(([query]) => query);
}

describe("Chinese and Japanese requests", () => {
  for (const mode of MODES) {
    it(`${mode}: ranks the right tool first for most Chinese requests`, () => {
      const hits = firstHits(zhTools, zhRequests, mode);
      expect(hits.length).toBeGreaterThanOrEqual(7);
    });

    it(`${mode}: ranks the right tool first for most Japanese requests`, () => {
      const hits = firstHits(jaTools, jaRequests, mode);
      expect(hits.length).toBeGreaterThanOrEqual(5);
    });
  }

  it("substring: a request with no space finds the tool through its bigrams", () => {
    expect(createSearchIndex("substring", zhTools).search("明天北京天气怎么样")).toContain("get_weather");
  });
});
